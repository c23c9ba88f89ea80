#!/usr/bin/env bash
# Starts or stops the test servers, Redis and PostgreSQL, on free ports of 127.0.0.1 with
# everything under one temp dir (nothing is written to the system's config directories).
#   eval "$(bash scripts/services.sh start)"   # exports PLATFORM_TEST_REDIS_URL,
#                                               # PLATFORM_TEST_PG_URL, PLATFORM_TEST_SERVICES_DIR
#   bash scripts/services.sh restart-redis "$PLATFORM_TEST_SERVICES_DIR"   # same port, empty data
#   bash scripts/services.sh stop-redis|start-redis "$PLATFORM_TEST_SERVICES_DIR"   # an outage
#   bash scripts/services.sh restart-postgres "$PLATFORM_TEST_SERVICES_DIR"   # same port, same data
#   bash scripts/services.sh stop-postgres|start-postgres "$PLATFORM_TEST_SERVICES_DIR"   # an outage
#   bash scripts/services.sh stop "$PLATFORM_TEST_SERVICES_DIR"
# Runs as root (PostgreSQL then runs as the postgres user) or as any user able to run both.
# Only the export lines go to stdout; logs stay in the temp dir.
set -euo pipefail

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

pg_bin() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$bin" ] || { echo "services.sh: PostgreSQL is not installed (bash scripts/setup.sh)" >&2; exit 1; }
  echo "$bin"
}

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

wait_for_redis() {
  local port=$1
  for _ in $(seq 100); do
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.05
  done
  return 1
}

redis_up() {
  local dir=$1 port=$2
  redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
  wait_for_redis "$port"
}

# A daemonized server's parent may be an init that reaps slowly: a zombie has exited.
alive() {
  [ -e "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}

# Waits for the old server to exit, so the port is free when it returns.
redis_down() {
  local dir=$1 pid
  [ -f "$dir/redis.pid" ] || return 0
  pid=$(cat "$dir/redis.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 200); do
    alive "$pid" || break
    sleep 0.05
  done
  rm -f "$dir/redis.pid"
}

# A port found free may be taken before the server binds it: try a few.
start_redis() {
  local dir=$1 port
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if redis_up "$dir" "$port"; then
      echo "$port" >"$dir/redis.port"
      return 0
    fi
    redis_down "$dir"
  done
  echo "services.sh: Redis did not start; see $dir/redis.log" >&2
  return 1
}

pg_start() {
  local dir=$1 port=$2
  as_postgres "$(pg_bin)/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w -t 30 \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $dir/pg -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null
}

start_postgres() {
  local dir=$1 bin port
  bin=$(pg_bin)
  if [ "$(id -u)" = 0 ]; then install -d -o postgres -g postgres "$dir/pg"; else mkdir -p "$dir/pg"; fi
  as_postgres "$bin/initdb" -D "$dir/pg/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1
  for _ in 1 2 3 4 5; do
    port=$(free_port)
    if pg_start "$dir" "$port"; then
      echo "$port" >"$dir/pg.port"
      return 0
    fi
  done
  echo "services.sh: PostgreSQL did not start; see $dir/pg/server.log" >&2
  return 1
}

start() {
  local dir
  dir=$(mktemp -d /tmp/platform-services.XXXXXX)
  chmod 755 "$dir"  # the postgres user must be able to reach its data dir
  trap 'stop "$dir"' ERR
  start_redis "$dir"
  start_postgres "$dir"
  trap - ERR
  echo "export PLATFORM_TEST_SERVICES_DIR=$dir"
  echo "export PLATFORM_TEST_REDIS_URL=redis://127.0.0.1:$(cat "$dir/redis.port")"
  echo "export PLATFORM_TEST_REDIS_PORT=$(cat "$dir/redis.port")"
  echo "export PLATFORM_TEST_PG_URL=postgresql://postgres@127.0.0.1:$(cat "$dir/pg.port")/postgres"
}

# The tests use this to check that clients survive a Redis restart.
restart_redis() {
  local dir=${1:?usage: services.sh restart-redis DIR}
  [ -f "$dir/redis.port" ] || { echo "services.sh: no Redis in $dir" >&2; exit 1; }
  redis_down "$dir"
  redis_up "$dir" "$(cat "$dir/redis.port")"
}

# An outage of its own length: stop-redis, then start-redis (same port, empty data).
stop_redis() {
  local dir=${1:?usage: services.sh stop-redis DIR}
  [ -f "$dir/redis.port" ] || { echo "services.sh: no Redis in $dir" >&2; exit 1; }
  redis_down "$dir"
}

start_redis_again() {
  local dir=${1:?usage: services.sh start-redis DIR}
  [ -f "$dir/redis.port" ] || { echo "services.sh: no Redis in $dir" >&2; exit 1; }
  redis_up "$dir" "$(cat "$dir/redis.port")"
}

# A fast restart (open connections are cut; the data stays), as an operator's would be.
restart_postgres() {
  local dir=${1:?usage: services.sh restart-postgres DIR}
  [ -f "$dir/pg.port" ] || { echo "services.sh: no PostgreSQL in $dir" >&2; exit 1; }
  as_postgres "$(pg_bin)/pg_ctl" -D "$dir/pg/data" -m fast -w -t 30 restart >/dev/null
}

# An outage of its own length (the data stays): stop-postgres, then start-postgres.
stop_postgres() {
  local dir=${1:?usage: services.sh stop-postgres DIR}
  [ -f "$dir/pg.port" ] || { echo "services.sh: no PostgreSQL in $dir" >&2; exit 1; }
  as_postgres "$(pg_bin)/pg_ctl" -D "$dir/pg/data" -m fast -w -t 30 stop >/dev/null
}

start_postgres_again() {
  local dir=${1:?usage: services.sh start-postgres DIR}
  [ -f "$dir/pg.port" ] || { echo "services.sh: no PostgreSQL in $dir" >&2; exit 1; }
  pg_start "$dir" "$(cat "$dir/pg.port")"
}

stop() {
  local dir=${1:?usage: services.sh stop DIR}
  [ -d "$dir" ] || return 0
  if [ -f "$dir/pg/data/postmaster.pid" ]; then
    as_postgres "$(pg_bin)/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  redis_down "$dir"
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  restart-redis) restart_redis "${2:-}" ;;
  stop-redis) stop_redis "${2:-}" ;;
  start-redis) start_redis_again "${2:-}" ;;
  restart-postgres) restart_postgres "${2:-}" ;;
  stop-postgres) stop_postgres "${2:-}" ;;
  start-postgres) start_postgres_again "${2:-}" ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: services.sh start | restart-redis DIR | stop-redis DIR | start-redis DIR | restart-postgres DIR | stop-postgres DIR | start-postgres DIR | stop DIR" >&2; exit 2 ;;
esac
