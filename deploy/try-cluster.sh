#!/usr/bin/env bash
# Starts, on this machine, the production topology of deploy/: HAProxy (haproxy.cfg) in front of two
# Consentry instances (consentry.env.example), which reach PostgreSQL through PgBouncer in transaction
# mode (pgbouncer.ini) and share Redis. For trying the files, and for the tests that restart and kill
# instances under load. Not for production: everything runs as children of this machine's user, with
# its state in one folder.
#
#   deploy/try-cluster.sh up           start everything; prints {"url", "instances": [{"pid", "port"}], …}
#   deploy/try-cluster.sh status       the same line for what runs (exit 1 when nothing does)
#   deploy/try-cluster.sh restart N    SIGTERM instance N (1 or 2), wait for its exit, start it, wait until ready
#   deploy/try-cluster.sh kill N       SIGKILL instance N, start it again, wait until ready
#   deploy/try-cluster.sh down         stop everything it started (nothing to stop is not an error)
#
# Environment:
#   DATABASE_URL   the PostgreSQL (and database) behind PgBouncer; default postgres://postgres@127.0.0.1:5432/postgres.
#                  The database is created when missing. PgBouncer logs in as its user without a
#                  password (PostgreSQL's trust authentication, as on a test machine).
#   DATABASE_SCHEMA  optional: the schema the instances run in (PgBouncer's connect_query sets it)
#   REDIS_URL      default redis://127.0.0.1:6379
#   CONSENTRY_CLUSTER_DIR  the state folder; default ${TMPDIR:-/tmp}/consentry-cluster
# Any other variable of docs/operating.md set here reaches the instances.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEPLOY="$ROOT/deploy"
STATE="${CONSENTRY_CLUSTER_DIR:-${TMPDIR:-/tmp}/consentry-cluster}"
TARGET_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
REDIS="${REDIS_URL:-redis://127.0.0.1:6379}"
SCHEMA="${DATABASE_SCHEMA:-}"
INSTANCES=2
PATH="$PATH:/usr/sbin:/sbin"

say() { echo "try-cluster: $*" >&2; }
die() { say "$*"; exit 1; }

# --- helpers ---------------------------------------------------------------------------------------

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
pid_of() { cat "$STATE/$1.pid" 2>/dev/null || true; }

# Waits until pid $1 has exited, at most $2 seconds; 1 when it has not.
wait_exit() {
  local pid=$1 deadline=$((SECONDS + $2))
  while alive "$pid"; do
    # A child of nobody's (reparented to init) that exited is reaped; a zombie still answers kill -0.
    [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && return 0
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.1
  done
}

# Waits until URL $1 answers 200, at most $2 seconds.
wait_ok() {
  local url=$1 deadline=$((SECONDS + $2))
  until curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.2
  done
}

# N free TCP ports on 127.0.0.1, asked of the system all at once so that they differ.
free_ports() {
  node -e '
    const net = require("node:net");
    const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer());
    Promise.all(servers.map((s) => new Promise((r) => s.listen(0, "127.0.0.1", () => r(s.address().port)))))
      .then((ports) => { console.log(ports.join(" ")); servers.forEach((s) => s.close()); });' "$1"
}

# The URL $1 with its host and port replaced by 127.0.0.1:$2 (and its database kept).
via_port() {
  node -e 'const u = new URL(process.argv[1]); u.hostname = "127.0.0.1"; u.port = process.argv[2]; console.log(u.toString())' "$1" "$2"
}

url_part() {
  node -e 'const u = new URL(process.argv[1]); const p = process.argv[2];
    console.log(p === "db" ? decodeURIComponent(u.pathname.slice(1)) || "postgres" : p === "user" ? decodeURIComponent(u.username) || "postgres" : p === "port" ? (u.port || "5432") : u.hostname)' "$1" "$2"
}

# Sets `key = value` in an ini file (the line that sets key, wherever it is).
ini_set() { sed -i -E "s|^$2 *=.*|$2 = $3|" "$1"; }

need_packages() {
  local missing=()
  command -v haproxy >/dev/null || missing+=(haproxy)
  command -v pgbouncer >/dev/null || missing+=(pgbouncer)
  command -v curl >/dev/null || missing+=(curl)
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian's ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; } \
    || die "could not install ${missing[*]} (apt-get install -y ${missing[*]})"
}

json() {
  local url instances="" i pid port
  url="http://127.0.0.1:$(cat "$STATE/balancer.port")"
  for i in $(seq 1 $INSTANCES); do
    pid=$(pid_of "instance$i")
    port=$(cat "$STATE/instance$i.port")
    instances+="${instances:+, }{\"pid\": ${pid:-null}, \"port\": $port}"
  done
  echo "{\"url\": \"$url\", \"instances\": [$instances], \"pgbouncer\": \"$(cat "$STATE/pgbouncer.url")\", \"state\": \"$STATE\"}"
}

# --- the parts -------------------------------------------------------------------------------------

start_pgbouncer() {
  local port=$1 ini="$STATE/pgbouncer.ini" connect="SET jit = off"
  [ -n "$SCHEMA" ] && connect="SET jit = off; SET search_path TO $SCHEMA"
  cp "$DEPLOY/pgbouncer.ini" "$ini"
  # The one database entry, pointed at DATABASE_URL's server and database, logged into as its user.
  sed -i -E "s|^consentry = .*|consentry = host=$(url_part "$TARGET_URL" host) port=$(url_part "$TARGET_URL" port) dbname=$(url_part "$TARGET_URL" db) user=$(url_part "$TARGET_URL" user) connect_query='$connect'|" "$ini"
  ini_set "$ini" listen_port "$port"
  ini_set "$ini" unix_socket_dir ""
  # No passwords here: PostgreSQL trusts this machine's connections, and so does this PgBouncer.
  ini_set "$ini" auth_type any
  sed -i -E '/^auth_file *=/d' "$ini"
  # Its log goes to stderr (pgbouncer.out), no pid file: it runs in the foreground, under this script's
  # eye, and may not be allowed into the state folder once it has dropped root.
  ini_set "$ini" logfile ""
  ini_set "$ini" pidfile ""
  # PgBouncer refuses to run as root: as root it drops to the postgres user (or nobody).
  local as=()
  if [ "$(id -u)" -eq 0 ]; then
    if id postgres >/dev/null 2>&1; then as=(-u postgres); else as=(-u nobody); fi
  fi
  setsid pgbouncer "${as[@]}" "$ini" </dev/null >>"$STATE/pgbouncer.out" 2>&1 &
  echo $! >"$STATE/pgbouncer.pid"
  echo "postgres://$(url_part "$TARGET_URL" user)@127.0.0.1:$port/consentry" >"$STATE/pgbouncer.url"
  local deadline=$((SECONDS + 15))
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    alive "$(pid_of pgbouncer)" || die "PgBouncer did not start: $(tail -n 5 "$STATE/pgbouncer.out")"
    [ $SECONDS -ge $deadline ] && die "PgBouncer does not listen on $port"
    sleep 0.1
  done
}

start_haproxy() {
  local port=$1 cfg="$STATE/haproxy.cfg" servers="" i
  # The file as an operator has it, but for this machine: no chroot or user, the admin socket in the
  # state folder, the log on HAProxy's stdout (haproxy.log).
  sed -E '/^\s*(chroot|user|group)\b/d' "$DEPLOY/haproxy.cfg" \
    | sed -E "s|^(\s*)stats socket .*|\1stats socket $STATE/haproxy.sock mode 600 level admin|" \
    | sed -E "s|^(\s*)log /dev/log .*|\1log stdout format raw local0|" \
    | sed -E "s|^(\s*bind )0\.0\.0\.0:80\b|\1127.0.0.1:$port|" \
    | sed -E '/^\s*server consentry[0-9]+ /d' >"$cfg"
  for i in $(seq 1 $INSTANCES); do
    echo "    server consentry$i 127.0.0.1:$(cat "$STATE/instance$i.port")" >>"$cfg"
  done
  haproxy -c -q -f "$cfg" || die "haproxy.cfg does not check: haproxy -c -f $cfg"
  setsid haproxy -W -db -f "$cfg" </dev/null >>"$STATE/haproxy.log" 2>&1 &
  echo $! >"$STATE/haproxy.pid"
}

# The environment of instance $1: consentry.env.example's variables, then this machine's addresses.
instance_env() {
  local i=$1 file="$STATE/instance$i.env"
  grep -E '^[A-Z_]+=' "$DEPLOY/consentry.env.example" >"$file"
  local pgb direct
  pgb=$(cat "$STATE/pgbouncer.url")
  direct="$TARGET_URL"
  env_set() { if grep -q "^$1=" "$file"; then sed -i "s|^$1=.*|$1=$2|" "$file"; else echo "$1=$2" >>"$file"; fi; }
  env_set DATABASE_URL "$pgb"
  env_set DATABASE_DIRECT_URL "$direct"
  env_set DATABASE_SCHEMA "$SCHEMA"
  env_set REDIS_URL "$REDIS"
  env_set HOST 127.0.0.1
  env_set PORT "$(cat "$STATE/instance$i.port")"
  env_set PUBLIC_URL "http://127.0.0.1:$(cat "$STATE/balancer.port")"
  env_set TRUST_PROXY loopback
  env_set DATA_DIR "$STATE/data$i"
  # Variables the caller set win over the example file's (not over the addresses above).
  local name
  for name in SCAN_CONCURRENCY METRICS_PORT METRICS_HOST SMTP_URL; do
    [ -n "${!name:-}" ] && env_set "$name" "${!name}"
  done
  unset -f env_set
}

# Starts instance $1 with the environment `up` wrote for it (a restart keeps its settings whatever
# the caller's environment says now).
start_instance() {
  local i=$1
  (
    cd "$ROOT"
    set -a
    # shellcheck disable=SC1090
    . "$STATE/instance$i.env"
    set +a
    exec setsid node --enable-source-maps --heap-growing-percent=50 dist/server.js </dev/null >>"$STATE/instance$i.log" 2>&1
  ) &
  echo $! >"$STATE/instance$i.pid"
}

wait_instance() {
  local i=$1 port
  port=$(cat "$STATE/instance$i.port")
  local deadline=$((SECONDS + 90))
  until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/readyz" 2>/dev/null; do
    alive "$(pid_of "instance$i")" || die "instance $i exited: $(tail -n 5 "$STATE/instance$i.log")"
    [ $SECONDS -ge $deadline ] && die "instance $i is not ready on port $port: $(tail -n 5 "$STATE/instance$i.log")"
    sleep 0.2
  done
}

# HAProxy's view of instance $1 (UP, DOWN, MAINT…), asked on its admin socket.
balancer_view() {
  node -e '
    const socket = require("node:net").createConnection(process.argv[1], () => socket.end("show stat\n"));
    let text = "";
    socket.on("data", (chunk) => (text += chunk));
    socket.on("end", () => {
      const row = text.split("\n").map((line) => line.split(",")).find((f) => f[0] === "consentry" && f[1] === process.argv[2]);
      console.log(row ? row[17] : "unknown");
    });
    socket.on("error", () => console.log("unknown"));' "$STATE/haproxy.sock" "consentry$1"
}

# Until the balancer has seen instance $1 healthy again (two checks a second apart), so that a
# rolling restart never takes the next instance out before this one is back.
wait_in_rotation() {
  local deadline=$((SECONDS + 30))
  until [ "$(balancer_view "$1")" = UP ]; do
    [ $SECONDS -ge $deadline ] && die "the balancer has not put instance $1 back in 30 s"
    sleep 0.2
  done
}

stop_pid() {
  local name=$1 signal=$2 wait=$3 pid
  pid=$(pid_of "$name")
  if alive "$pid"; then
    kill "-$signal" "$pid" 2>/dev/null || true
    wait_exit "$pid" "$wait" || { kill -KILL "$pid" 2>/dev/null || true; wait_exit "$pid" 5 || true; }
  fi
  rm -f "$STATE/$name.pid"
}

instance_number() {
  [[ "${1:-}" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le $INSTANCES ] || die "name an instance: 1 to $INSTANCES"
  [ -f "$STATE/instance$1.port" ] || die "not up (deploy/try-cluster.sh up)"
}

# --- commands --------------------------------------------------------------------------------------

up() {
  if [ -f "$STATE/balancer.port" ] && alive "$(pid_of haproxy)"; then die "already up ($STATE); deploy/try-cluster.sh down first"; fi
  # What a failed start left running is stopped first; a start that fails now stops what it started.
  down
  mkdir -p "$STATE"
  trap 'say "up failed: stopping what it started (logs were in $STATE)"; down' EXIT
  need_packages
  if [ ! -f "$ROOT/dist/server.js" ]; then
    say "building the server (npm run build:server)"
    (cd "$ROOT" && npm run -s build:server) >&2
  fi
  if command -v psql >/dev/null; then
    local db
    db=$(url_part "$TARGET_URL" db)
    local server
    server=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/postgres"; console.log(u.toString())' "$TARGET_URL")
    if ! psql "$server" -tAc "select 1 from pg_database where datname = '$db'" | grep -q 1; then
      say "creating database $db"
      psql "$server" -qc "create database \"$db\"" >&2
    fi
  fi
  local ports
  read -r -a ports <<<"$(free_ports $((INSTANCES + 2)))"
  echo "${ports[0]}" >"$STATE/balancer.port"
  for i in $(seq 1 $INSTANCES); do echo "${ports[$i]}" >"$STATE/instance$i.port"; done
  start_pgbouncer "${ports[$((INSTANCES + 1))]}"
  # Both at once, as a deployment starts: one applies the migrations, the other waits for it.
  for i in $(seq 1 $INSTANCES); do instance_env "$i"; start_instance "$i"; done
  for i in $(seq 1 $INSTANCES); do wait_instance "$i"; done
  start_haproxy "${ports[0]}"
  for i in $(seq 1 $INSTANCES); do wait_in_rotation "$i"; done
  wait_ok "http://127.0.0.1:${ports[0]}/readyz" 30 || die "the balancer does not answer /readyz: $(tail -n 5 "$STATE/haproxy.log")"
  trap - EXIT
  json
}

restart() {
  instance_number "${1:-}"
  stop_pid "instance$1" TERM 60
  start_instance "$1"
  wait_instance "$1"
  wait_in_rotation "$1"
  json
}

kill_instance() {
  instance_number "${1:-}"
  stop_pid "instance$1" KILL 10
  start_instance "$1"
  wait_instance "$1"
  wait_in_rotation "$1"
  json
}

down() {
  [ -d "$STATE" ] || return 0
  stop_pid haproxy TERM 10
  for i in $(seq 1 $INSTANCES); do stop_pid "instance$i" TERM 60; done
  stop_pid pgbouncer TERM 10
  rm -rf "$STATE"
}

status() {
  [ -f "$STATE/balancer.port" ] && alive "$(pid_of haproxy)" || { say "not up"; exit 1; }
  json
}

case "${1:-}" in
  up) up ;;
  restart) restart "${2:-}" ;;
  kill) kill_instance "${2:-}" ;;
  down) down ;;
  status) status ;;
  *) die "usage: deploy/try-cluster.sh up | restart N | kill N | down | status" ;;
esac
