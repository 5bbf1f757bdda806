#!/usr/bin/env bash
# Speed of `ccfn logs` beside jq, on the same log in the same run.
#
# Makes a log of SIZE bytes (default 1 GiB) with the examples server under
# wrk, as bench/load.sh drives it (JSON contract logs to a file), with
# some requests that fail: one in 20 is a voicemail notice whose recording
# cannot be downloaded (an `api_error` record, level ERROR), one in 20 a
# wait without `To` (a `validation_error`, level WARN). Then times, with
# the file in the page cache, each filter by ccfn and by jq, and prints
# MB/s, peak memory, and ccfn's throughput as a multiple of jq's:
#
# - ERROR records:   ccfn logs --error --json   |  jq -c 'select(.level=="ERROR")'
# - one call:        ccfn logs --call CA.. --json  |  jq -c 'select(.call_sid=="CA..")'
#   (every request is a call of its own)
# - the last tenth:  ccfn logs --since T --json   |  jq -c 'select(.timestamp>="T")'
#   (ccfn binary-searches the file for T)
# - ERROR records in the human format: ccfn logs --error (no jq peer)
#
#   bash bench/logs.sh
#   SIZE=200M bash bench/logs.sh      # a quicker run
#   KEEP=1 bash bench/logs.sh         # reuse the log of the last run
#
# Needs wrk and jq (installed with apt-get when missing). Traffic goes to
# 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE="${SIZE:-1G}"
PORT="${PORT:-3103}"
OUT="${OUT:-target/logs-bench}"
LOG="$OUT/app.log"
WAIT="/features/callback-and-voicemail-with-email/studio/wait-experience"
NOTICE="/features/callback-and-voicemail-with-email/voicemail/recording-complete"

# shellcheck source=bench/common.sh
source bench/common.sh
need wrk jq

bytes() { numfmt --from=iec "$1"; }
TARGET=$(bytes "$SIZE")

cargo build --release -p ccfn-cli --quiet
mkdir -p "$OUT"

make_log() {
  prepare
  cat >"$OUT/mixed.lua" <<LUA
-- Each request is a call of its own, as in production.
math.randomseed(os.time())
local n = math.random(0, 2^30) * 1024
local form = { ["Content-Type"] = "$POST_TYPE" }
local to = "&To=%2B15559870000"
local notice = "&RecordingSid=RE0123456789abcdef0123456789abcdef&RecordingDuration=12"
  .. "&RecordingUrl=http%3A%2F%2F127.0.0.1%3A9%2Frecordings%2FRE0123456789abcdef0123456789abcdef"
request = function()
  n = n + 1
  local call = string.format("CallSid=CA%032x&From=%%2B15551230000", n)
  if n % 20 == 0 then return wrk.format("POST", "$NOTICE", form, call .. notice) end
  if n % 20 == 10 then return wrk.format("POST", "$WAIT", form, call) end
  return wrk.format("POST", "$WAIT", form, call .. to)
end
LUA
  rm -rf "$OUT/outbox" "$LOG"
  CCFN_ADDR="127.0.0.1:${PORT}" CCFN_LOG_FORMAT=json CCFN_OUTBOX_DIR="$OUT/outbox" \
    CCFN_TASK_STORE="$OUT/tasks.jsonl" ./target/release/example-contact-center \
    >"$LOG" 2>"$OUT/server.stderr" &
  local pid=$!
  for _ in $(seq 50); do
    curl -s -o /dev/null -X HEAD "http://127.0.0.1:${PORT}${WAIT}" && break
    sleep 0.1
  done
  while [ "$(stat -c %s "$LOG")" -lt "$TARGET" ]; do
    wrk -t1 -c16 -d5s -s "$OUT/mixed.lua" "http://127.0.0.1:${PORT}" >/dev/null
  done
  kill -TERM "$pid"
  wait "$pid"
  rm -rf "$OUT/outbox"
}

if [ -z "${KEEP:-}" ] || [ ! -s "$LOG" ]; then
  make_log
fi

size=$(stat -c %s "$LOG")
lines=$(wc -l <"$LOG")
# A call half way into the file.
call=$(tail -c $((size / 2)) "$LOG" | grep -m1 -o '"call_sid":"CA[0-9a-f]*"' | cut -d'"' -f4 || true)
# The timestamp nine tenths of the way into the file.
since=$(tail -c $((size / 10)) "$LOG" | sed -n 2p | cut -d'"' -f4 || true)
cat "$LOG" >/dev/null # into the page cache

# timed NAME COMMAND...: runs COMMAND with stdout to a file; prints the
# seconds, MB/s and peak RSS, and keeps the seconds in "$OUT/NAME.s".
timed() {
  local name="$1"
  shift
  /usr/bin/time -f "%e %M" -o "$OUT/$name.time" "$@" >"$OUT/$name.out" || true
  read -r seconds rss_kb <"$OUT/$name.time"
  echo "$seconds" >"$OUT/$name.s"
  printf '  %-22s %8s s %9s MB/s %8s MiB peak  %9s lines out\n' "$name" "$seconds" \
    "$(awk -v b="$size" -v s="$seconds" 'BEGIN { printf "%.0f", (s > 0 ? b / s / 1e6 : 0) }')" \
    "$((rss_kb / 1024))" "$(wc -l <"$OUT/$name.out")"
}

ratio() {
  awk -v a="$(cat "$OUT/$2.s")" -v b="$(cat "$OUT/$1.s")" -v n="$3" \
    'BEGIN { printf "  %-12s ccfn %.1fx the throughput of jq\n", n, (b > 0 ? a / b : 0) }'
}

echo "$(nproc) cores; $LOG: $((size / 1048576)) MiB, $lines lines; $(jq --version); ccfn $(git rev-parse --short HEAD)"
CCFN=./target/release/ccfn
timed ccfn-error "$CCFN" logs --error --json "$LOG"
timed jq-error jq -c 'select(.level=="ERROR")' "$LOG"
timed ccfn-call "$CCFN" logs --call "$call" --json "$LOG"
timed jq-call jq -c --arg c "$call" 'select(.call_sid==$c)' "$LOG"
timed ccfn-since "$CCFN" logs --since "$since" --limit 100000000 --json "$LOG"
timed jq-since jq -c --arg t "$since" 'select(.timestamp>=$t)' "$LOG"
timed ccfn-error-human "$CCFN" logs --error --color never "$LOG"

# The same records, or the comparison means nothing (jq rewrites numbers,
# so the lines are counted, not compared).
for filter in error call since; do
  if [ "$(wc -l <"$OUT/ccfn-$filter.out")" -ne "$(wc -l <"$OUT/jq-$filter.out")" ]; then
    echo "FAIL: ccfn and jq found different numbers of records for $filter" >&2
    exit 1
  fi
done
echo
ratio ccfn-error jq-error "ERROR:"
ratio ccfn-call jq-call "one call:"
ratio ccfn-since jq-since "last tenth:"
