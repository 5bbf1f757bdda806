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
prepare() {
  cargo build --release -p example-contact-center --quiet
  mkdir -p "$OUT"
  cat > "$OUT/post.lua" <<LUA
wrk.method = "POST"
wrk.body = "$POST_BODY"
wrk.headers["Content-Type"] = "$POST_TYPE"
LUA
}
