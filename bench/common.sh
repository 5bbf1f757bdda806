# shellcheck shell=bash
# What the load scripts share; sourced by them, with OUT set.

# The request the load scripts send to the wait-experience path: a form
# with the three parameters it requires.
POST_BODY="CallSid=CA0123456789abcdef0123456789abcdef&From=%2B15551230000&To=%2B15559870000"
POST_TYPE="application/x-www-form-urlencoded"

# Installs each of the given commands with apt-get when it is missing.
need() {
  local tool
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null; then
      echo "installing $tool" >&2
      if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
      $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "$tool" >/dev/null
    fi
  done
}

# Installs each of the given commands with cargo install when it is
# missing (for tools that are crates and not Debian packages; the crate
# has the command's name).
need_crate() {
  local tool
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null; then
      echo "installing $tool" >&2
      cargo install --locked -j2 --quiet "$tool"
    fi
  done
}

# Builds the examples server in release mode and writes "$OUT/post.lua":
# wrk's request to the wait-experience path.
# CLEAN_ENV: the command prefix a server runs under, in this environment
# alone, whoever runs the bench (`"${CLEAN_ENV[@]}" VARIABLE=VALUE...
# COMMAND &`: a plain command, so that `$!` is the server's pid). The
# caller's variables would otherwise reach the functions' context, and a
# value under a sensitive name (a shell's `PWD`, a token) is a secret
# every line is scanned for: the counts would depend on who ran them. One
# secret is set, as every deployment has one, so that the scan is counted
# as it runs there.
CLEAN_ENV=(env -i "PATH=$PATH" "HOME=$HOME" EMAILPROVIDER_API_KEY=bench-email-key-4c1e8a0f)

prepare() {
  cargo build --release -p example-contact-center --quiet
  mkdir -p "$OUT"
  cat > "$OUT/post.lua" <<LUA
wrk.method = "POST"
wrk.body = "$POST_BODY"
wrk.headers["Content-Type"] = "$POST_TYPE"
LUA
}

# otel_sink PORT: an OpenTelemetry collector on 127.0.0.1:PORT that
# accepts every OTLP/HTTP export (200, an empty answer) and keeps nothing:
# what a server's export costs, without a collector's own work. Its pid is
# in SINK_PID; it needs python3.
otel_sink() {
  python3 - "$1" <<'PY' &
import http.server, sys

class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass

http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()
PY
  SINK_PID=$!
  for _ in $(seq 50); do
    curl -s -o /dev/null -X POST "http://127.0.0.1:$1/v1/traces" && return
    sleep 0.1
  done
}
