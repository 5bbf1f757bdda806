# What the load scripts share; sourced by them, with OUT set.

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

# Builds the examples server in release mode and writes "$OUT/post.lua":
# wrk's request to the wait-experience path.
prepare() {
  cargo build --release -p example-contact-center --quiet
  mkdir -p "$OUT"
  cat > "$OUT/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = "CallSid=CA0123456789abcdef0123456789abcdef&From=%2B15551230000&To=%2B15559870000"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
LUA
}
