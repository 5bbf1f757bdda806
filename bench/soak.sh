#!/usr/bin/env bash
# Soak of the examples server: SOAK_SECONDS (default 60) at CONNS (default
# 64) connections, JSON contract logs to a file, with a mix of requests:
# the wait-experience menu, requests missing a required parameter (400,
# one in eight), callback requests (tasks in the local task store, one in
# eight), the voicemail prompt (one in eight), and voicemail notices whose
# recording a local file server serves (one in 32; the email, with the
# recording attached, goes to a local outbox). Embedded defaults, no
# credentials.
#
# It prints the requests answered, the invocations logged, and checks that
# every invocation has exactly one `start` and one `end`, that no line is
# dropped (`log_dropped`) or unparsable, and that resident memory grows by
# less than 2 MiB from 10 s in to the end. It exits 1 when a check fails.
#
#   bash bench/soak.sh
#   SOAK_SECONDS=20 CONNS=16 bash bench/soak.sh
#
# Needs wrk and python3 (wrk installed with apt-get when missing). Traffic
# goes to 127.0.0.1 only; every step is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."

SOAK_SECONDS="${SOAK_SECONDS:-60}"
CONNS="${CONNS:-64}"
PORT="${PORT:-3103}"
FILES_PORT="${FILES_PORT:-3104}"
OUT="${OUT:-target/soak}"
BASE="http://127.0.0.1:${PORT}"

# shellcheck source=bench/common.sh
source bench/common.sh
need wrk python3

prepare
rm -rf "$OUT/outbox" "$OUT/tasks.jsonl" "$OUT/files"

# The platform's recording storage: a 2 kB "MP3" on a local file server.
ACCOUNT=ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
mkdir -p "$OUT/files/2010-04-01/Accounts/$ACCOUNT/Recordings"
head -c 2048 /dev/urandom >"$OUT/files/2010-04-01/Accounts/$ACCOUNT/Recordings/RE1.mp3"
RECORDING="http://127.0.0.1:${FILES_PORT}/2010-04-01/Accounts/$ACCOUNT/Recordings/RE1"

cat >"$OUT/mix.lua" <<LUA
-- One request in eight is missing a parameter, one asks for a callback,
-- one for the voicemail prompt; one in 32 is a voicemail notice (the
-- local file server that serves its recording is slower than ccfn); the
-- rest is the menu.
local n = 0
local form = "application/x-www-form-urlencoded"
local voice = "CallSid=CA0123456789abcdef0123456789abcdef&From=%2B15551230000&To=%2B15559870000"
local wait = "/features/callback-and-voicemail-with-email/studio/wait-experience"
local notice = "/features/callback-and-voicemail-with-email/voicemail/recording-complete"
request = function()
  n = n + 1
  local kind = n % 8
  if kind == 6 and n % 32 ~= 6 then
    kind = 0
  end
  local path, body = wait, voice
  if kind == 4 then
    body = "CallSid=CA0123456789abcdef0123456789abcdef&From=%2B15551230000"
  elseif kind == 5 then
    body = voice .. "&mode=callback"
  elseif kind == 6 then
    path = notice
    body = "CallSid=CA0123456789abcdef0123456789abcdef&From=%2B15551230000&RecordingSid=RE1&RecordingDuration=3&RecordingUrl=" .. "${RECORDING}"
  elseif kind == 7 then
    body = voice .. "&mode=voicemail"
  end
  return wrk.format("POST", path, { ["Content-Type"] = form }, body)
end
LUA

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

python3 -m http.server "$FILES_PORT" --bind 127.0.0.1 --directory "$OUT/files" \
  >"$OUT/files.log" 2>&1 &
pids+=($!)

CCFN_ADDR="127.0.0.1:${PORT}" CCFN_LOG_FORMAT=json \
  CCFN_OUTBOX_DIR="$OUT/outbox" CCFN_TASK_STORE="$OUT/tasks.jsonl" \
  ./target/release/example-contact-center >"$OUT/soak.log" 2>"$OUT/soak.stderr" &
server=$!
pids+=("$server")
for _ in $(seq 50); do
  curl -s -o /dev/null -X HEAD "$BASE/features/callback-and-voicemail-with-email/studio/wait-experience" && break
  sleep 0.1
done
for _ in $(seq 50); do
  curl -s -o /dev/null "$RECORDING.mp3" && break
  sleep 0.1
done

rss() { awk '/VmRSS/ {print $2}' "/proc/$server/status"; }
wrk -t1 -c"$CONNS" -d"${SOAK_SECONDS}s" -s "$OUT/mix.lua" "$BASE" >"$OUT/soak.wrk" &
load=$!
sleep 10
rss_10=$(rss)
wait "$load"
rss_end=$(rss)
kill -TERM "$server"
# The server finishes what is in flight within its 10 s grace; past 15 s
# it is killed.
for _ in $(seq 150); do
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
kill -KILL "$server" 2>/dev/null || true
wait "$server" || true
# The outbox holds a folder per notice: gigabytes after a long run.
rm -rf "$OUT/outbox"

answered=$(awk '/requests in/ {print $1}' "$OUT/soak.wrk")
non2xx=$(awk '/Non-2xx/ {print $5}' "$OUT/soak.wrk")
echo "$(nproc) cores, ${SOAK_SECONDS} s at ${CONNS} connections"
echo "requests answered: $answered (non-2xx: ${non2xx:-0}; one request in eight lacks a parameter)"
echo "resident memory: $((rss_10 / 1024)) MiB at 10 s, $((rss_end / 1024)) MiB at the end, growth $((rss_end - rss_10)) KiB"
python3 - "$OUT/soak.log" "$rss_10" "$rss_end" "$CONNS" <<'PY'
import collections, json, sys

path, rss_10, rss_end, conns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
starts, ends = collections.Counter(), collections.Counter()
steps = collections.Counter()
unparsable = dropped = 0
with open(path, encoding="utf-8", errors="strict") as lines:
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            unparsable += 1
            continue
        step = record.get("step")
        steps[step] += 1
        if step == "log_dropped":
            dropped += record.get("dropped", 0)
        elif step == "start":
            starts[record["invocation_id"]] += 1
        elif step == "end":
            ends[record["invocation_id"]] += 1
ids = set(starts) | set(ends)
unbalanced = [i for i in ids if starts[i] != 1 or ends[i] != 1]
print(f"invocations logged: {len(ids)}; records: {sum(steps.values())}; "
      f"critical (tasks created): {steps['critical']}; email_result: {steps['email_result']}")
print("steps:", dict(sorted(steps.items())))
print(f"start = end per invocation: {'yes' if not unbalanced else 'NO, ' + str(len(unbalanced)) + ' unbalanced'}")
print(f"log lines dropped: {dropped}; unparsable lines: {unparsable}")
growth = rss_end - rss_10
failed = bool(unbalanced) or dropped or unparsable or growth >= 2048
print("FAIL" if failed else "ok: every check passed")
sys.exit(1 if failed else 0)
PY
