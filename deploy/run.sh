#!/usr/bin/env bash
# make run: the whole stack in the foreground. A project-local Postgres (data
# under .data/), the judge on 127.0.0.1:8081, the interview service on
# 127.0.0.1:8082 and Caddy on 127.0.0.1:8080 in front of both: this machine
# only, unless the settings say otherwise. Every log line is prefixed with its service.
# Ctrl-C or SIGTERM stops everything this script started: the proxy and the
# services first, then Postgres with a fast (clean) shutdown. Running it again
# is safe: an interrupted earlier run leaves nothing that blocks this one.
#
# Settings come from the environment, then from .env (the environment wins,
# as with docker compose). docs/operations.md describes every step.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
data=$root/.data

log() { printf '[run] %s\n' "$*"; }
die() {
	printf '[run] error: %s\n' "$*" >&2
	exit 1
}
is_root() { [ "$(id -u)" -eq 0 ]; }

# load_env reads KEY=VALUE lines the way docker compose reads .env: blank lines
# and # comments skipped, optional "export ", optional quotes, an unquoted
# value ends at " #". Variables already set in the environment are kept, and
# an empty value counts as unset (.env.example lists every setting empty).
load_env() {
	local line key val n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%$'\r'}
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		line=${line#export }
		if [[ ! $line =~ ^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*=(.*)$ ]]; then
			log ".env line $n is not KEY=VALUE; skipped"
			continue
		fi
		key=${BASH_REMATCH[1]}
		val=${BASH_REMATCH[2]}
		val=${val#"${val%%[![:space:]]*}"}
		if [[ $val =~ ^\"(.*)\"[[:space:]]*$ || $val =~ ^\'(.*)\'[[:space:]]*$ ]]; then
			val=${BASH_REMATCH[1]}
		else
			val=${val%%[[:space:]]#*}
			val=${val%"${val##*[![:space:]]}"}
		fi
		if [ -n "$val" ] && [ -z "${!key+x}" ]; then
			export "$key=$val"
		fi
	done <.env
}

# port_of prints the port of a listen address such as ":8081" or "127.0.0.1:8081".
port_of() { printf '%s\n' "${1##*:}"; }

# reach prints host:port to reach a listen address from this machine: an
# address on every interface (":8081", "0.0.0.0:8081", "[::]:8081") is
# reached on 127.0.0.1, any other at its own host.
reach() {
	local host=${1%:*}
	case $host in "" | 0.0.0.0 | :: | "[::]") host=127.0.0.1 ;; esac
	printf '%s:%s\n' "$host" "$(port_of "$1")"
}

# redact_url prints a URL for the terminal without what may be a secret in
# it: user name and password, query string and fragment (some providers take
# their key as ?api-key=…). Whatever is hidden shows as "…".
redact_url() {
	local u=$1 tail=
	[ -n "$u" ] || {
		printf '(default base URL)\n'
		return
	}
	case $u in *[?#]*) u=${u%%[?#]*} tail='?…' ;; esac
	if [[ $u =~ ^([A-Za-z][A-Za-z0-9+.-]*://)([^/]*)(.*)$ ]]; then
		local host=${BASH_REMATCH[2]}
		case $host in *@*) host="…@${host##*@}" ;; esac
		printf '%s%s%s%s\n' "${BASH_REMATCH[1]}" "$host" "${BASH_REMATCH[3]}" "$tail"
	else
		printf '(set, but not a URL)\n'
	fi
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_http waits up to 30 s for url to answer 200, or for pid to die.
wait_http() {
	local name=$1 url=$2 pid=$3 i
	for i in $(seq 1 150); do
		if curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || die "$name exited during start-up; its log is above"
		sleep 0.2
	done
	die "$name did not answer $url within 30 s; its log is above"
}

if [ -f .env ]; then
	load_env
	log "loaded settings from .env"
fi

for b in bin/judge bin/interview; do
	[ -x "$b" ] || die "$b is missing: run make build (make run builds first)"
done
command -v caddy >/dev/null || die "caddy is not installed: run make deps, or: sudo apt-get install -y caddy"
command -v curl >/dev/null || die "curl is not installed: sudo apt-get install -y curl"

judge_addr=${JUDGE_ADDR:-127.0.0.1:8081}
interview_addr=${INTERVIEW_ADDR:-127.0.0.1:8082}
caddy_bind=${CADDY_BIND:-127.0.0.1}
caddy_port=${CADDY_PORT:-8080}
pg_port=${LOCAL_PG_PORT:-5433}
judge_port=$(port_of "$judge_addr")
interview_port=$(port_of "$interview_addr")

# Something else on our ports would make a service die with a bind error
# buried in its log; say it plainly before starting anything.
busy=()
for p in "$judge_port" "$interview_port" "$caddy_port"; do
	port_busy "$p" && busy+=("$p")
done
[ ${#busy[@]} -eq 0 ] || die "port(s) ${busy[*]} already in use (another make run?); stop that first, or see README troubleshooting"

mkdir -p "$data"

pids=()
declare -A names=()
pg_pid=
pg_data=
pg_user=

# start runs a command in the background with its output prefixed by name.
# $! is the command itself (the prefixer runs in a process substitution), so
# stop() signals the service, never the prefixer. The service runs in a
# session of its own: the terminal's Ctrl-C reaches only this script, which
# stops the services in order (a service that saw the Ctrl-C itself would
# exit first and look like a crash). The prefixer ignores Ctrl-C: it must
# outlive its service to pass on the shutdown logs, and it ends by itself
# when the service closes its output.
start() {
	local name=$1
	shift
	setsid "$@" > >(
		trap '' INT TERM HUP
		exec sed -u "s/^/[$name] /"
	) 2>&1 &
	pids+=($!)
	names[$!]=$name
}

as_pg() {
	if [ -n "$pg_user" ]; then
		setpriv --reuid="$pg_user" --regid="$pg_user" --init-groups -- "$@"
	else
		"$@"
	fi
}

stopping=
stop() {
	[ -z "$stopping" ] || return 0
	stopping=1
	# A second Ctrl-C (or the terminal's signal to the whole process group
	# arriving after ours) must not cut the shutdown short and orphan
	# Postgres; Ctrl-\ still kills this script if something hangs.
	trap '' INT TERM HUP
	# Shutdown must run to the end whatever a single step answers.
	set +e
	log "stopping"
	local pid i alive services=()
	for pid in "${pids[@]}"; do
		[ "$pid" = "$pg_pid" ] || services+=("$pid")
	done
	for pid in "${services[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	# The services drain in-flight requests for up to 10 s.
	for i in $(seq 1 75); do
		alive=
		for pid in "${services[@]}"; do
			kill -0 "$pid" 2>/dev/null && alive=1
		done
		[ -z "$alive" ] && break
		sleep 0.2
	done
	for pid in "${services[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			log "${names[$pid]} did not stop in 15 s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
	if [ -n "$pg_pid" ] && kill -0 "$pg_pid" 2>/dev/null; then
		as_pg "$pg_bin/pg_ctl" stop -D "$pg_data" -m fast -w -t 60 >/dev/null ||
			{
				log "postgres did not stop; sending SIGQUIT"
				kill -QUIT "$pg_pid" 2>/dev/null || true
			}
	fi
	wait 2>/dev/null || true
	log "stopped"
}
# A stop that was asked for and went through is a success: make would
# otherwise report Ctrl-C as a failed target.
trap 'stop; exit 0' INT TERM
trap 'stop; exit 129' HUP
trap stop EXIT

# --- Postgres --------------------------------------------------------------
if [ -n "${DATABASE_URL:-}" ]; then
	log "DATABASE_URL is set: using it, no local Postgres"
	database_url=$DATABASE_URL
else
	pg_bin=${PG_BIN:-}
	if [ -z "$pg_bin" ]; then
		pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -1 || true)
		[ -n "$pg_bin" ] || { command -v initdb >/dev/null && pg_bin=$(dirname "$(command -v initdb)"); }
	fi
	[ -x "$pg_bin/postgres" ] || die "Postgres is not installed: run make deps, or: sudo apt-get install -y postgresql"

	pg_data=$data/postgres
	pg_sock=$data/run
	if is_root; then
		# Postgres refuses to run as root: the cluster belongs to an
		# unprivileged system user, the same one the test harness uses.
		pg_user=postgres
		if ! id "$pg_user" >/dev/null 2>&1; then
			log "creating system user $pg_user to run Postgres"
			useradd --system --user-group --home-dir /nonexistent --shell /usr/sbin/nologin "$pg_user"
		fi
		# A checkout under a private directory (say /root) cannot be reached
		# by that user; keep the cluster in a directory of its own then.
		if ! as_pg test -x "$data"; then
			alt=/var/lib/judgeworks/$(printf %s "$root" | sha256sum | cut -c1-12)
			log "$pg_user cannot reach $data; keeping the cluster in $alt"
			pg_data=$alt/postgres
			pg_sock=$alt/run
		fi
	fi
	mkdir -p "$pg_data" "$pg_sock"
	chmod 700 "$pg_data"
	[ -z "$pg_user" ] || chown "$pg_user:" "$pg_data" "$pg_sock"

	pw_file=$data/postgres.password
	if [ ! -s "$pw_file" ]; then
		(umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$pw_file")
	fi
	pg_password=$(cat "$pw_file")

	if [ ! -f "$pg_data/PG_VERSION" ]; then
		log "creating the local Postgres cluster in $pg_data (first run)"
		tmp_pw=$pg_sock/initdb.pw
		(umask 077 && printf '%s\n' "$pg_password" >"$tmp_pw")
		[ -z "$pg_user" ] || chown "$pg_user:" "$tmp_pw"
		as_pg "$pg_bin/initdb" -D "$pg_data" -U postgres --pwfile="$tmp_pw" \
			--auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null ||
			{
				rm -f "$tmp_pw"
				die "initdb failed"
			}
		rm -f "$tmp_pw"
	fi

	# An earlier run that was killed (not stopped) leaves postmaster.pid
	# behind, and perhaps its server. A server of ours is stopped; a file
	# whose pid is dead or now belongs to another program is removed, since
	# Postgres would refuse to start while the pid is alive.
	pid_file=$pg_data/postmaster.pid
	if [ -f "$pid_file" ]; then
		old=$(head -1 "$pid_file" 2>/dev/null || true)
		if [[ $old =~ ^[0-9]+$ ]] && kill -0 "$old" 2>/dev/null && [ "$(cat "/proc/$old/comm" 2>/dev/null)" = postgres ]; then
			log "a Postgres from an earlier run is still up (pid $old); stopping it"
			as_pg "$pg_bin/pg_ctl" stop -D "$pg_data" -m fast -w -t 60 >/dev/null
		else
			log "removing a stale postmaster.pid from an earlier run"
			rm -f "$pid_file" "$pg_sock"/.s.PGSQL.*.lock
		fi
	fi

	port_busy "$pg_port" && die "port $pg_port (local Postgres) already in use; set LOCAL_PG_PORT or stop that server"

	# Its own session, so that Ctrl-C in the terminal reaches this script and
	# not Postgres: the database goes down last, after the services.
	pg_as=()
	[ -z "$pg_user" ] || pg_as=(setpriv --reuid="$pg_user" --regid="$pg_user" --init-groups --)
	start postgres "${pg_as[@]}" "$pg_bin/postgres" -D "$pg_data" -p "$pg_port" -k "$pg_sock" \
		-c listen_addresses=127.0.0.1 -c log_line_prefix='%m ' -c log_min_messages=warning
	pg_pid=${pids[-1]}
	for i in $(seq 1 150); do
		"$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" && break
		kill -0 "$pg_pid" 2>/dev/null || die "postgres exited during start-up; its log is above"
		sleep 0.2
	done
	"$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" || die "postgres did not accept connections within 30 s"

	export PGPASSWORD=$pg_password
	db=judgeworks
	if [ "$("$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -XtAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]; then
		log "creating database $db"
		"$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres "$db"
	fi
	unset PGPASSWORD
	database_url="postgres://postgres:$pg_password@127.0.0.1:$pg_port/$db?sslmode=disable"
fi

# --- services ----------------------------------------------------------------
if [ -z "${LLM_BASE_URL:-}" ] && [ -z "${LLM_API_KEY:-}" ]; then
	offline=1
else
	offline=
fi

# A paid model must never answer for a well-known or short key: with a model
# configured (LLM settings or a models file) or in production the judge
# refuses dev-key and keys under 32 characters. Then, unless JUDGE_API_KEYS is
# given, a random key is generated once and kept in .data/judge-api-key;
# offline, the well-known dev-key of the README's examples is kept.
key_source=env
if [ -z "${JUDGE_API_KEYS:-}" ]; then
	if [ -n "$offline" ] && [ -z "${JUDGE_MODELS_FILE:-}" ] && [ "${APP_ENV:-}" != production ]; then
		key_source=dev
		export JUDGE_API_KEYS=dev-key
	else
		key_source=generated
		key_file=$data/judge-api-key
		if [ ! -s "$key_file" ]; then
			(umask 077 && od -An -v -tx1 -N32 /dev/urandom | tr -d ' \n' >"$key_file")
			log "generated a judge key in ${key_file#"$root"/}"
		fi
		chmod 600 "$key_file"
		JUDGE_API_KEYS=$(cat "$key_file")
		export JUDGE_API_KEYS
	fi
fi
first_key=${JUDGE_API_KEYS%%,*}
first_key=${first_key%%:*}

judge_at=$(reach "$judge_addr")
interview_at=$(reach "$interview_addr")
caddy_at=$(reach "$caddy_bind:$caddy_port")

# What keys spent and used survives a restart here (unless REDIS_URL).
start judge env JUDGE_ADDR="$judge_addr" JUDGE_DATA_DIR="${JUDGE_DATA_DIR:-$data/judge}" bin/judge
start interview env INTERVIEW_ADDR="$interview_addr" DATABASE_URL="$database_url" \
	JUDGE_URL="${JUDGE_URL:-http://$judge_at}" JUDGE_API_KEY="${JUDGE_API_KEY:-$first_key}" \
	bin/interview
wait_http judge "http://$judge_at/healthz" "${pids[-2]}"
wait_http interview "http://$interview_at/healthz" "${pids[-1]}"

start caddy env CADDY_ADDR=":$caddy_port" CADDY_BIND="$caddy_bind" JUDGE_UPSTREAM="$judge_at" \
	INTERVIEW_UPSTREAM="$interview_at" \
	caddy run --config deploy/Caddyfile --adapter caddyfile
wait_http caddy "http://$caddy_at/healthz" "${pids[-1]}"

echo
if [ "$caddy_bind" = 127.0.0.1 ]; then
	log "ready: http://localhost:$caddy_port   (this machine only; CADDY_BIND opens it to others)"
else
	log "ready: http://$caddy_at   (listening on $caddy_bind)"
fi
case $key_source in
dev) log "judge development key: dev-key   (Authorization: Bearer dev-key; offline engines only)" ;;
generated) log "judge key: kept in .data/judge-api-key, readable by you only   (Authorization: Bearer \$(cat .data/judge-api-key))" ;;
*) log "judge keys: from JUDGE_API_KEYS" ;;
esac
if [ -n "$offline" ]; then
	log "no LLM settings (LLM_BASE_URL, LLM_API_KEY): judge and interview run on the offline engines (judge model local/semantic-latest)"
else
	log "language model: ${LLM_MODEL:-(LLM_MODEL unset)} at $(redact_url "${LLM_BASE_URL:-}")"
fi
log "Ctrl-C stops everything"
echo

# Any process that ends on its own takes the whole stack down with it: a
# half-running stack is harder to notice than a stopped one.
set +e
wait -n -p ended "${pids[@]}"
status=$?
set -e
[ -n "$stopping" ] && exit 0
log "${names[$ended]:-a process} exited (status $status); stopping the rest"
stop
exit 1
