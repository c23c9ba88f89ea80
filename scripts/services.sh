#!/usr/bin/env bash
# Starts or stops the test servers on 127.0.0.1, each in a temp dir: PostgreSQL and Redis.
#   eval "$(bash scripts/services.sh start)"   # exports PLATFORM_TEST_PG_URL, PLATFORM_TEST_REDIS_URL,
#                                               # PLATFORM_TEST_SERVICES_DIR
#   bash scripts/services.sh stop "$PLATFORM_TEST_SERVICES_DIR"
set -euo pipefail

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start() {
  local dir redis_port pg_port pgbin
  dir=$(mktemp -d /tmp/platform-services.XXXXXX)
  chmod 755 "$dir"
  redis_port=$(free_port)
  redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$dir" --save '' --appendonly no \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  install -d -o postgres -g postgres "$dir/pg"
  runuser -u postgres -- "$pgbin/initdb" -D "$dir/pg/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1
  pg_port=$(free_port)
  runuser -u postgres -- "$pgbin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w \
    -o "-p $pg_port -c listen_addresses=127.0.0.1 -k $dir/pg -c fsync=off -c max_connections=300" start >/dev/null
  for _ in $(seq 50); do
    redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  echo "export PLATFORM_TEST_SERVICES_DIR=$dir"
  echo "export PLATFORM_TEST_REDIS_URL=redis://127.0.0.1:$redis_port"
  echo "export PLATFORM_TEST_REDIS_PORT=$redis_port"
  echo "export PLATFORM_TEST_PG_URL=postgresql://postgres@127.0.0.1:$pg_port/postgres"
}

stop() {
  local dir=${1:?usage: services.sh stop DIR}
  [ -d "$dir" ] || return 0
  local pgbin
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  if [ -f "$dir/pg/data/postmaster.pid" ]; then
    runuser -u postgres -- "$pgbin/pg_ctl" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ -f "$dir/redis.pid" ]; then kill "$(cat "$dir/redis.pid")" 2>/dev/null || true; fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: services.sh start | stop DIR" >&2; exit 2 ;;
esac
