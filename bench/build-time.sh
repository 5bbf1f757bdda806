#!/usr/bin/env bash
# How long a newcomer waits for the function template to build: its first
# `cargo test` from an empty build directory, then an edit of the handler
# followed by `cargo test`, as the edit-and-test cycle goes.
#
# Generates the template into a temporary folder pointed at this checkout
# (as templates/check does), with the workspace's Cargo.lock (the versions
# CI tests), fetches its dependencies (downloads are not timed), then
# times, with nothing built before:
#
# - first:  `cargo test` from an empty target directory
# - edit:   one line of the welcome function changed, `cargo test`
# - again:  another such edit (what every later cycle costs)
#
# and prints the seconds of each and the machine's cores. Give it a quiet
# machine: compile times move with whatever else runs.
#
#   bash bench/build-time.sh
#   JOBS=2 bash bench/build-time.sh     # as many parallel jobs as given
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

project="$(bash "$root/templates/generate" "$out")"
cp "$root/Cargo.lock" "$project/"
export CARGO_TARGET_DIR="$out/target"
if [ -n "${JOBS:-}" ]; then
  export CARGO_BUILD_JOBS="$JOBS"
fi
cd "$project"
cargo fetch --quiet

# seconds COMMAND...: runs the command, quietly, and prints how many
# seconds it took, to a tenth.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$out/last.log" 2>&1 || { cat "$out/last.log" >&2; exit 1; }
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}

# edit N: a line of the welcome function's body changed (a statement
# that says which edit this is), so that the crate and its tests are built
# again, as after any change to a handler.
edit() {
  sed -i -e '/let _edit = /d' \
    -e "s/^\(    let company = context.required(\"COMPANY_NAME\");\)$/\1\n    let _edit = $1;/" src/lib.rs
  grep -q "let _edit = $1;" src/lib.rs || { echo "the welcome function was not found to edit" >&2; exit 1; }
}

first=$(seconds cargo test)
edit 1
changed=$(seconds cargo test)
edit 2
again=$(seconds cargo test)

printf 'cores      %s\n' "$(nproc)"
printf 'first      %s s   cargo test from an empty target directory\n' "$first"
printf 'edit       %s s   one line of the handler changed, cargo test\n' "$changed"
printf 'again      %s s   another such edit, cargo test\n' "$again"
