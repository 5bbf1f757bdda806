#!/usr/bin/env bash
# Where a request's CPU goes, thread by thread: runs the release examples
# server (JSON logs to a file, as a deployment writes them; to /dev/null,
# to leave out the file system's share; or logging off), drives the
# wait-experience path with wrk for DURATION, and prints each thread's
# user and system CPU over the run (from /proc/<pid>/task/*/stat), in
# milliseconds and per request, with how often a request made it give
# up its core (waiting for work) or be taken off it (preempted by
# another thread, from /proc/<pid>/task/*/status). What callgrind's
# instruction counts do not see shows here: the kernel's work on the
# sockets and on the log file, and the cost of sharing two cores.
#
#   bash bench/threads.sh
#   LOGS=off CONNS=64 DURATION=20s bash bench/threads.sh
#   LOGS=null bash bench/threads.sh
#   WORKERS=1 bash bench/threads.sh
#   NODE=../shared/bench/peer/bare.js bash bench/threads.sh
#   VOICEMAIL=1 bash bench/threads.sh
#
# WORKERS=<n> runs the server's runtime with n worker threads
# (TOKIO_WORKER_THREADS) instead of one per core.
#
# VOICEMAIL=1 sends the peer bench's request instead (mode=voicemail:
# the prompt to leave a message), which bare Node answers with a
# constant.
#
# NODE=<script> measures that Node server (it serves the same path, on
# the port given as its argument) the same way instead: the reference a
# ratio is taken against, read in the same hour.
#
# Needs wrk (installed with apt-get when missing). Traffic goes to
# 127.0.0.1 only; the log file is deleted after the run.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-10s}"
CONNS="${CONNS:-16}"
LOGS="${LOGS:-json}"
PORT="${PORT:-3104}"
OUT="${OUT:-target/threads}"
URL="http://127.0.0.1:${PORT}/features/callback-and-voicemail-with-email/studio/wait-experience"

# shellcheck source=bench/common.sh
source bench/common.sh
need wrk
if [ "${VOICEMAIL:-0}" = 1 ]; then
  POST_BODY="CallSid=CA0123456789abcdef0123456789abcdef&From=%2B15551230000&To=%2B15559870000&mode=voicemail"
fi
prepare

log="$OUT/server.log"
case "$LOGS" in
  json) filter=info ;;
  null)
    filter=info
    log=/dev/null
    ;;
  off) filter=off ;;
  *)
    echo "LOGS is json, null or off, not $LOGS" >&2
    exit 2
    ;;
esac

# Each thread of process $1: its id, its name, its user and system
# clock ticks, and the times it gave up its core (waiting) and was
# taken off it (preempted).
ticks() {
  local task switches
  for task in /proc/"$1"/task/*; do
    switches=$(awk '/^voluntary_ctxt_switches/ {v = $2} /^nonvoluntary_ctxt_switches/ {n = $2} END {print v, n}' "$task/status")
    # The name may hold spaces: it is what the parentheses hold.
    awk -v tid="${task##*/}" -v switches="$switches" '{
      line = $0
      name = substr(line, index(line, "(") + 1)
      name = substr(name, 1, length(name) - length(substr(name, index(name, ") "))))
      gsub(/ /, "_", name)
      rest = substr(line, index(line, ") ") + 2)
      split(rest, f, " ")
      print tid, name, f[12], f[13], switches
    }' "$task/stat"
  done | sort
}

if [ -n "${NODE:-}" ]; then
  need node
  LOGS="none (node $(basename "$NODE"))"
  log=/dev/null
  node "$NODE" "$PORT" >/dev/null 2>"$OUT/server.stderr" &
else
  workers=()
  if [ -n "${WORKERS:-}" ]; then
    workers=("TOKIO_WORKER_THREADS=$WORKERS")
    LOGS="$LOGS, $WORKERS worker(s)"
  fi
  "${CLEAN_ENV[@]}" "${workers[@]}" CCFN_INSPECTOR=off CCFN_ADDR="127.0.0.1:${PORT}" CCFN_LOG_FORMAT=json CCFN_LOG="$filter" \
    ./target/release/example-contact-center >"$log" 2>"$OUT/server.stderr" &
fi
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$OUT/server.log"' EXIT
for _ in $(seq 100); do
  curl -s -m 1 -o /dev/null "$URL" && break
  sleep 0.2
done

ticks "$pid" >"$OUT/before"
answered=$(wrk -t2 -c"$CONNS" -d"$DURATION" -s "$OUT/post.lua" "$URL" | awk '/requests in/ {print $1}')
ticks "$pid" >"$OUT/after"
logged=0
if [ "$log" != /dev/null ]; then
  logged=$(stat -c %s "$log")
fi

hz=$(getconf CLK_TCK)
echo "$answered requests, $((logged / (answered > 0 ? answered : 1))) log bytes a request, LOGS=$LOGS, $CONNS connections"
join "$OUT/before" "$OUT/after" | awk -v n="$answered" -v hz="$hz" '
  { user = ($8 - $3) * 1000 / hz; sys = ($9 - $4) * 1000 / hz
    waited = $10 - $5; preempted = $11 - $6
    if (user + sys > 0) {
      printf "%-18s user %7.0f ms  system %7.0f ms  %.4f ms a request  switches a request: %.3f waiting, %.3f preempted\n", $2, user, sys, (user + sys) / n, waited / n, preempted / n
      tu += user; ts += sys; tw += waited; tp += preempted
    } }
  END { printf "%-18s user %7.0f ms  system %7.0f ms  %.4f ms a request  switches a request: %.3f waiting, %.3f preempted\n", "all", tu, ts, (tu + ts) / n, tw / n, tp / n }'
