#!/usr/bin/env bash
# Instructions per request of the examples server, counted by callgrind:
# a figure that does not move with what else the machine is doing, unlike
# times. Runs the release server under valgrind, counting from the
# moment it answers (start-up is not per request), drives the wait-experience
# path with wrk (4 connections) for DURATION, and prints the server's
# instructions divided by the requests answered, for the
# floor (bench/floor: axum alone, the same route and answer, no
# contract), with JSON logs and with logging off, then the functions that
# cost the most, and each as a multiple of the floor.
#
#   bash bench/instructions.sh
#   DURATION=10s TOP=40 bash bench/instructions.sh
#
# The inspector page (on by default in local mode) is off in every run
# but one: with INSPECTOR=1, one more run with JSON logs and the inspector
# on (each record formatted a second time and filed in its memory).
#
# With OTEL=1, one more run: JSON logs and OpenTelemetry export (traces
# and metrics every second) to a collector on loopback that accepts and
# drops everything (bench/common.sh's otel_sink); its instructions
# include the export threads'.
#
# Needs valgrind and wrk (installed with apt-get when missing). Traffic
# goes to 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION="${DURATION:-10s}"
PORT="${PORT:-3102}"
OUT="${OUT:-target/instructions}"
TOP="${TOP:-25}"
URL="http://127.0.0.1:${PORT}/features/callback-and-voicemail-with-email/studio/wait-experience"

# shellcheck source=bench/common.sh
source bench/common.sh
need valgrind wrk

prepare
cargo build --release -p ccfn-bench-floor --quiet

# run NAME LOG_FILTER [SERVER [VARIABLE=VALUE...]]
run() {
  local name="$1" filter="$2" server="${3:-example-contact-center}"
  shift $(($# < 3 ? $# : 3))
  "${CLEAN_ENV[@]}" CCFN_INSPECTOR=off "$@" CCFN_ADDR="127.0.0.1:${PORT}" CCFN_LOG_FORMAT=json CCFN_LOG="$filter" TOKIO_WORKER_THREADS=1 \
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/$name.callgrind" \
    "./target/release/$server" >"$OUT/$name.log" 2>"$OUT/$name.stderr" &
  local pid=$!
  for _ in $(seq 100); do
    curl -s -o /dev/null -X HEAD "$URL" && break
    sleep 0.2
  done
  # Start-up (the CA certificates read and decoded, the clients built)
  # is not per request: counting starts once the server answers. The
  # switch is taken up on the server's next activity, so requests are
  # sent until it has been (one or two of them may be counted).
  callgrind_control -i on "$pid" >/dev/null 2>&1 &
  local zeroing=$!
  while kill -0 "$zeroing" 2>/dev/null; do
    curl -s -o /dev/null -X POST -H "Content-Type: $POST_TYPE" --data "$POST_BODY" "$URL"
  done
  local answered
  answered=$(wrk -t1 -c4 -d"$DURATION" -s "$OUT/post.lua" "$URL" | awk '/requests in/ {print $1}')
  kill -TERM "$pid"
  wait "$pid" || true
  local total
  total=$(callgrind_annotate "$OUT/$name.callgrind" 2>/dev/null |
    awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  printf '%-9s %8s requests %9s instructions/request\n' "$name" "$answered" "$((total / answered))"
  echo "$((total / answered))" >"$OUT/$name.per-request"
  callgrind_annotate "$OUT/$name.callgrind" 2>/dev/null |
    awk -v n="$answered" -v top="$TOP" '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ && shown++ < top {
      count = $1; gsub(",", "", count); $1 = "";
      sub(/^ *\( *[0-9.]+%\) */, ""); sub(/ \[.*$/, ""); printf "      %8d  %s\n", count / n, $0 }'
}

run floor off ccfn-bench-floor
run json info
run off off
names="json off"
if [ "${INSPECTOR:-0}" = 1 ]; then
  run inspector info example-contact-center CCFN_INSPECTOR=on
  names="$names inspector"
fi
if [ "${OTEL:-0}" = 1 ]; then
  SINK_PORT=$((PORT + 1))
  otel_sink "$SINK_PORT"
  run otel info example-contact-center \
    OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:${SINK_PORT}" OTEL_METRIC_EXPORT_INTERVAL=1000
  kill "$SINK_PID"
  names="$names otel"
fi

echo
for name in $names; do
  awk -v name="$name" -v a="$(cat "$OUT/$name.per-request")" -v b="$(cat "$OUT/floor.per-request")" \
    'BEGIN { printf "%-9s %.2fx the floor'"'"'s instructions per request\n", name, a / b }'
done
