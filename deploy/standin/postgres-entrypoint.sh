#!/bin/bash
# The official postgres image's contract, on Debian's postgresql-15: an empty
# data directory is initialised with POSTGRES_USER (default postgres),
# POSTGRES_PASSWORD (required) and POSTGRES_DB (default the user); clients
# over the network authenticate with that password (scram-sha-256).
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA"
	chown -R postgres:postgres "$PGDATA" /var/run/postgresql
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
	: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required to initialise the database}"
	user=${POSTGRES_USER:-postgres}
	db=${POSTGRES_DB:-$user}
	pwfile=$(mktemp)
	printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
	initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
	rm -f "$pwfile"
	echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
	echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
	if [ "$db" != postgres ]; then
		pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
		psql -v ON_ERROR_STOP=1 -q -U "$user" -d postgres -c "CREATE DATABASE \"$db\""
		pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
	fi
	echo "database initialised: user $user, database $db"
fi
exec "$@"
