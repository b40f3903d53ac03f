#!/usr/bin/env bash
# Verifies the container image and compose.yaml with podman (docs/container.md "Verifying"):
#
#   1. builds the image from the Containerfile (the base images must exist: pulled, or made by
#      scripts/container-base.sh), and checks it: runs as waypost, not root; has a health check;
#      holds ffmpeg and ffprobe but no npm, compiler, Python or dev dependency;
#   2. SQLite on the /data volume: starts it, waits for /readyz, reads the setup link from its
#      log, creates the first account through that link, uploads a video (ffprobe must read its
#      duration and ffmpeg make its thumbnail), writes a post, imports a GPX file, checks the
#      health check; then removes the container and starts a new one on the same volume: the
#      account, its session, the post, the video's bytes and the import are all there, and the
#      log asks for no new account;
#   3. compose.yaml with podman-compose: PostgreSQL, the server with WAYPOST_INLINE_WORKER=false
#      and the separate worker (the import is done only if the worker ran it); the same checks,
#      across `down` and `up -d` (containers gone, volumes kept).
#
# Prints one line per check and closes with "N passed, N failed"; exits non-zero on a failure.
# Needs podman (and podman-compose for part 3), curl and a Node of any version on the host.
#
# Settings (environment):
#   VERIFY_PORT, VERIFY_COMPOSE_PORT  host ports on loopback (default 18080, 18081)
#   VERIFY_SKIP_BUILD=1               use the waypost:latest image as it is
#   VERIFY_SKIP_COMPOSE=1             only parts 1 and 2
#   CONTAINER_RUN_ARGS                more `podman run` arguments; default the runtime and limits
#                                     this project's machines need: --runtime runc --ulimit
#                                     nofile=1024:1024 --ulimit nproc=1000:1000
#   CONTAINER_BUILD_ARGS              more `podman build` arguments (default the same ulimits)
#   CONTAINER_CA_CERTIFICATES         a PEM bundle the build's npm trusts in addition (behind a
#                                     TLS-inspecting proxy); default NODE_EXTRA_CA_CERTS when set
set -euo pipefail
cd "$(dirname "$0")/.."

port=${VERIFY_PORT:-18080}
compose_port=${VERIFY_COMPOSE_PORT:-18081}
image=waypost:latest
name=waypost-verify
volume=waypost-verify-data
project=waypost-verify
read -r -a run_args <<<"${CONTAINER_RUN_ARGS:---runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1000:1000}"
read -r -a build_args <<<"${CONTAINER_BUILD_ARGS:---ulimit nofile=1024:1024 --ulimit nproc=1000:1000}"
ca=${CONTAINER_CA_CERTIFICATES:-${NODE_EXTRA_CA_CERTS:-}}

work=$(mktemp -d "${TMPDIR:-/tmp}/waypost-verify.XXXXXX")
passed=0
failed=0

compose() {
  podman-compose -p "$project" -f compose.yaml --podman-run-args="${run_args[*]}" "$@" >>"$work/compose.log" 2>&1
}

cleanup() {
  podman rm -f "$name" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
  if [[ ${VERIFY_SKIP_COMPOSE:-} != 1 ]] && command -v podman-compose >/dev/null; then
    WAYPOST_PUBLISH=127.0.0.1:$compose_port compose down || true
    podman volume rm -f "${project}_waypost-data" "${project}_postgres-data" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

ok() {
  passed=$((passed + 1))
  printf 'ok   %s\n' "$*"
}
fail() {
  failed=$((failed + 1))
  printf 'FAIL %s\n' "$*"
}
check() { # check DESCRIPTION COMMAND...: the command's success is the check's
  local what=$1
  shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
finish() {
  printf '%s passed, %s failed\n' "$passed" "$failed"
  [[ $failed -eq 0 ]]
}
abort() { # a failed step that later checks depend on
  fail "$*"
  finish || exit 1
}

# json FILE EXPRESSION: the expression (JavaScript, `d` the parsed file) printed.
json() {
  node -e 'let v; try { const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); v = eval(process.argv[2]); } catch {} process.stdout.write(v === undefined || v === null ? "" : String(v));' "$1" "$2"
}

wait_ready() { # wait_ready BASE: /readyz answers 200 within 120 s
  for _ in $(seq 1 120); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "$1/readyz" || true) == 200 ]] && return 0
    sleep 1
  done
  return 1
}

setup_link() { # setup_link LOGFILE BASE: the newest setup link the log printed
  grep -o "$2/setup?token=[A-Za-z0-9_-]*" "$1" | tail -1
}

answered() { # answered STATUS BODYFILE: the last request's status ($work/status) was STATUS; else says what came
  [[ $(cat "$work/status") == "$1" ]] && return 0
  printf '     answered %s: %s\n' "$(cat "$work/status")" "$(head -c 400 "$2")"
  return 1
}

# The same-origin headers the web app's own scripts send with the session cookie.
api() { # api JAR CSRF CURL-ARGS...
  local jar=$1 csrf=$2
  shift 2
  curl -sS -b "$jar" -c "$jar" -H 'Sec-Fetch-Site: same-origin' -H "X-CSRF-Token: $csrf" "$@"
}

first_account() { # first_account BASE LINK JAR: creates the account through the setup link
  local base=$1 link=$2 jar=$3 form csrf token status
  form=$(curl -sS -c "$jar" -b "$jar" "$link")
  csrf=$(sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' <<<"$form" | head -1)
  token=${link##*token=}
  status=$(curl -sS -o /dev/null -w '%{http_code}' -b "$jar" -c "$jar" -H 'Sec-Fetch-Site: same-origin' \
    --data-urlencode "csrf=$csrf" --data-urlencode "token=$token" --data-urlencode 'username=verify' \
    --data-urlencode "password=$password" --data-urlencode "password_again=$password" "$base/setup")
  [[ $status == 303 ]]
}

page_csrf() { # page_csrf BASE JAR: the session's CSRF token, from the timeline page
  curl -sS -b "$2" "$1/" | sed -n 's/.*<meta name="csrf-token" content="\([^"]*\)".*/\1/p' | head -1
}

# write_data BASE CONTAINER: a video, a post and an import (their ids in globals); with $worker
# set, that container is stopped while the import is sent
write_data() {
  local base=$1 container=$2 csrf
  csrf=$(page_csrf "$base" "$jar")
  [[ -n $csrf ]] || abort "$label: the signed-in timeline carries a CSRF token"

  # A one-second video, made by the image's own ffmpeg.
  podman exec "$container" ffmpeg -v error -nostdin -y -f lavfi -i testsrc=duration=1:size=160x120:rate=10 \
    -pix_fmt yuv420p /tmp/verify.mp4
  podman cp "$container:/tmp/verify.mp4" "$work/verify.mp4"
  api "$jar" "$csrf" -o "$work/medium.json" -w '%{http_code}' -F "file=@$work/verify.mp4;type=video/mp4" \
    "$base/media" >"$work/status"
  check "$label: POST /media of a video answers 201" answered 201 "$work/medium.json"
  medium=$(json "$work/medium.json" 'd.id')
  check "$label: ffprobe read the video's duration ($(json "$work/medium.json" 'd.duration') s)" \
    test -n "$(json "$work/medium.json" 'd.duration > 0 ? 1 : ""')"
  check "$label: ffmpeg made the video's thumbnail" test -n "$(json "$work/medium.json" 'd.thumbnail_url')"

  api "$jar" "$csrf" -o "$work/post.json" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data "{\"text\":\"Written before the restart\",\"scope\":\"private\",\"groups\":[],\"media_ids\":[\"$medium\"]}" \
    "$base/posts" >"$work/status"
  check "$label: POST /posts answers 202" answered 202 "$work/post.json"
  post=$(json "$work/post.json" 'd.id')

  cat >"$work/points.gpx" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="container-verify" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><trkseg>
    <trkpt lat="52.5200" lon="13.4050"><time>2024-05-01T10:00:00Z</time></trkpt>
    <trkpt lat="52.5210" lon="13.4060"><time>2024-05-01T10:01:00Z</time></trkpt>
    <trkpt lat="52.5220" lon="13.4070"><time>2024-05-01T10:02:00Z</time></trkpt>
  </trkseg></trk>
</gpx>
EOF
  api "$jar" "$csrf" -o "$work/import.json" -w '%{http_code}' -F "file=@$work/points.gpx" "$base/imports" >"$work/status"
  check "$label: POST /imports answers 202" answered 202 "$work/import.json"
  import=$(json "$work/import.json" 'd.id')
  if [[ -n $worker ]]; then
    # Only the worker runs jobs: stopped, the import waits for it.
    sleep 5
    api "$jar" "$csrf" -o "$work/import.json" "$base/imports/$import" || true
    check "$label: with the worker stopped, the import stays queued" test "$(json "$work/import.json" 'd.status')" = queued
    podman start "$worker" >/dev/null 2>>"$work/podman.log"
  fi
  local status=""
  for _ in $(seq 1 90); do
    api "$jar" "$csrf" -o "$work/import.json" "$base/imports/$import" || true
    status=$(json "$work/import.json" 'd.status')
    [[ $status == queued || $status == running ]] || break
    sleep 1
  done
  check "$label: the import ran to done with 3 points ($status, $(json "$work/import.json" 'd.points_stored'))" \
    test "$status/$(json "$work/import.json" 'd.points_stored')" = done/3
}

# read_data BASE LOGFILE: what write_data wrote is there, through the same session
read_data() {
  local base=$1 log=$2
  check "$label: the log asks for no new account" bash -c "! grep -q 'No account exists yet' '$log'"
  curl -sS -b "$jar" -o "$work/post-after.json" "$base/posts/id/$post" || true
  check "$label: the session and the post are there" \
    test "$(json "$work/post-after.json" 'd.text + "/" + d.media_ids.join()')" = "Written before the restart/$medium"
  curl -sS -b "$jar" -o "$work/medium-after.json" "$base/media/id/$medium" || true
  curl -sS -b "$jar" -o "$work/video-after.mp4" "$(json "$work/medium-after.json" 'd.url')" || true
  check "$label: the video's bytes are the ones uploaded" cmp -s "$work/verify.mp4" "$work/video-after.mp4"
  curl -sS -b "$jar" -o "$work/import-after.json" "$base/imports/$import" || true
  check "$label: the import is there, done" test "$(json "$work/import-after.json" 'd.status')" = 'done'
}

worker=""
password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')

# 1. The image.
if [[ ${VERIFY_SKIP_BUILD:-} != 1 ]]; then
  secret=()
  [[ -n $ca && -s $ca ]] && secret=(--secret "id=ca-certificates,src=$ca")
  echo "== building $image (log: podman build output below on failure)"
  if ! podman build --format docker "${build_args[@]}" "${secret[@]}" -f Containerfile -t "$image" . >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"
    abort "the image builds"
  fi
  ok "the image builds"
fi
size=$(podman image inspect --format '{{.Size}}' "$image")
printf 'info image size: %s bytes (%s MB)\n' "$size" "$((size / 1000 / 1000))"
check "the image runs as waypost" test "$(podman image inspect --format '{{.Config.User}}' "$image")" = waypost
check "the image has a health check on /readyz" \
  bash -c "podman image inspect --format '{{.Config.Healthcheck.Test}}' '$image' | grep -q healthcheck.mjs"
tools=$(podman run --rm "${run_args[@]}" --entrypoint sh "$image" -c \
  'for c in npm npx node-gyp gcc g++ cc make python3 tsc; do command -v $c; done;
   ls /app/node_modules | grep -xE "typescript|vitest|eslint|prettier|playwright-core" || true;
   for c in ffmpeg ffprobe node; do command -v $c >/dev/null && echo $c; done' 2>"$work/tools.err" | tr '\n' ' ')
check "no npm, compiler, Python or dev dependency in it; ffmpeg, ffprobe and node are ($tools)" \
  test "$tools" = 'ffmpeg ffprobe node '

# 2. SQLite on the volume.
label=sqlite
base=http://127.0.0.1:$port
jar=$work/sqlite.jar
start_sqlite() {
  podman run -d --name "$name" "${run_args[@]}" -p "127.0.0.1:$port:8080" -e "WAYPOST_BASE_URL=$base" \
    -v "$volume:/data" "$image" >/dev/null 2>>"$work/podman.log"
}
# Podman runs health checks from systemd timers; without systemd (as here) it says so on every
# start and stop, and a check runs only when asked: `podman healthcheck run`.
healthy() { podman healthcheck run "$1" >/dev/null 2>>"$work/podman.log"; }
echo "== $label: one container, SQLite on the volume $volume"
podman rm -f "$name" >/dev/null 2>&1 || true
podman volume rm -f "$volume" >/dev/null 2>&1 || true
start_sqlite
wait_ready "$base" || {
  podman logs "$name" 2>&1 | tail -20
  abort "$label: /readyz answers 200"
}
ok "$label: /readyz answers 200"
check "$label: the health check passes" healthy "$name"
check "$label: the server runs as uid 1000" test "$(podman exec "$name" id -u)" = 1000
podman logs "$name" >"$work/sqlite-1.log" 2>&1
link=$(setup_link "$work/sqlite-1.log" "$base")
check "$label: the log has the setup link" test -n "$link"
first_account "$base" "$link" "$jar" || abort "$label: the setup link creates the first account"
ok "$label: the setup link creates the first account"
write_data "$base" "$name"

podman stop -t 20 "$name" >/dev/null 2>>"$work/podman.log"
check "$label: SIGTERM stops it cleanly (exit code 0)" \
  test "$(podman inspect --format '{{.State.ExitCode}}' "$name")" = 0
podman rm "$name" >/dev/null 2>>"$work/podman.log"
start_sqlite
wait_ready "$base" || abort "$label: a new container on the same volume answers /readyz"
ok "$label: a new container on the same volume answers /readyz"
sleep 2
podman logs "$name" >"$work/sqlite-2.log" 2>&1
read_data "$base" "$work/sqlite-2.log"
# The README's command for accounts, run in the container beside the server.
printf '%s\n' "$password" | podman exec -i "$name" waypost user add second >/dev/null 2>>"$work/podman.log" || true
check "$label: \`waypost user add\` in the container adds an account" \
  bash -c "podman exec '$name' waypost user list 2>/dev/null | grep -q second"
podman rm -f "$name" >/dev/null 2>>"$work/podman.log"

# 3. compose.yaml: PostgreSQL, the server and the worker.
if [[ ${VERIFY_SKIP_COMPOSE:-} == 1 ]]; then
  finish
  exit
fi
label=compose
base=http://127.0.0.1:$compose_port
jar=$work/compose.jar
export WAYPOST_PUBLISH=127.0.0.1:$compose_port WAYPOST_BASE_URL=$base
POSTGRES_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
export POSTGRES_PASSWORD
echo "== $label: compose.yaml (project $project)"
compose down || true
podman volume rm -f "${project}_waypost-data" "${project}_postgres-data" >/dev/null 2>&1 || true
compose up -d || abort "$label: podman-compose up -d"
wait_ready "$base" || {
  tail -30 "$work/compose.log"
  abort "$label: /readyz answers 200"
}
ok "$label: /readyz answers 200 (PostgreSQL; the server restarted $(podman inspect --format "{{.RestartCount}}" "${project}_waypost_1" 2>/dev/null) times while PostgreSQL started)"
check "$label: the health check passes" healthy "${project}_waypost_1"
sleep 2
podman-compose -p "$project" -f compose.yaml logs waypost >"$work/compose-1.log" 2>&1 || true
check "$label: the server is on PostgreSQL" grep -q '"database":"postgres"' "$work/compose-1.log"
link=$(setup_link "$work/compose-1.log" "$base")
check "$label: \`logs waypost\` has the setup link" test -n "$link"
podman logs "${project}_worker_1" >"$work/worker.log" 2>&1
check "$label: the worker is running" grep -q 'Waypost worker is running' "$work/worker.log"
first_account "$base" "$link" "$jar" || abort "$label: the setup link creates the first account"
ok "$label: the setup link creates the first account"
# The server runs no jobs (WAYPOST_INLINE_WORKER=false): the import is the worker's.
worker=${project}_worker_1
podman stop "$worker" >/dev/null 2>>"$work/podman.log"
write_data "$base" "${project}_waypost_1"
worker=""

compose down || abort "$label: podman-compose down"
compose up -d || abort "$label: podman-compose up -d again"
wait_ready "$base" || abort "$label: after down and up, /readyz answers 200"
ok "$label: after down and up, /readyz answers 200"
sleep 2
podman logs "${project}_waypost_1" >"$work/compose-2.log" 2>&1
read_data "$base" "$work/compose-2.log"

finish
