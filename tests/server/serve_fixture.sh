#!/bin/sh
# serve_fixture.sh start DIR ANYGPU [tls] | stop DIR
# Starts `anygpu serve` (cpu backend) with its state in DIR, detached from
# CTest's pipes, and waits until it listens; or stops it and shows its log
# (one line per session).  It listens on the Unix socket DIR/sock, or with
# tls on a loopback TCP port with TLS forced on and a token required, as
# a server on a network would.  DIR/env then says how a client reaches it
# (ANYGPU_SERVER, and with tls ANYGPU_TOKEN and ANYGPU_TLS_FINGERPRINT),
# one VAR=value a line, for tests/cuda/run_test.cmake's ENV_FILE.
set -eu
cmd=$1 dir=$2

# Waits until the log says the server listens; 1 if it died or took 10 s.
wait_listening() {
	i=0
	until grep -q "listening on" "$dir/serve.log"; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			return 1
		fi
		sleep 0.1
	done
}

# Starts the server with the given listening options, detached.
start_serve() {
	rm -f "$dir/serve.log"
	setsid "$anygpu" serve --backend cpu --state-dir "$dir" "$@" \
		</dev/null >"$dir/serve.log" 2>&1 &
	echo $! >"$dir/pid"
}

case $cmd in
start)
	anygpu=$3
	mkdir -p "$dir"
	if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
		kill "$(cat "$dir/pid")" || true
		sleep 1
	fi
	rm -f "$dir/sock" "$dir/pid" "$dir/env" "$dir/tokens.db"
	if [ "${4:-}" = tls ]; then
		token=$("$anygpu" token create --name ctest --state-dir "$dir")
		# A free port: another run on this machine may hold the first.
		for try in 1 2 3 4 5 6 7 8; do
			port=$((20000 + ($$ * 7 + try * 7919) % 40000))
			start_serve --listen "127.0.0.1:$port" --tls on
			wait_listening && break
			kill "$(cat "$dir/pid")" 2>/dev/null || true
		done
		fp=$(sed -n 's/.*fingerprint \([0-9a-f]*\).*/\1/p' "$dir/serve.log")
		printf 'ANYGPU_SERVER=tls:127.0.0.1:%s\nANYGPU_TOKEN=%s\nANYGPU_TLS_FINGERPRINT=%s\n' \
			"$port" "$token" "$fp" >"$dir/env"
	else
		start_serve --unix "$dir/sock"
		printf 'ANYGPU_SERVER=unix:%s/sock\n' "$dir" >"$dir/env"
	fi
	if ! wait_listening; then
		echo "anygpu serve did not start:"
		cat "$dir/serve.log"
		exit 1
	fi
	echo "anygpu serve (pid $(cat "$dir/pid")): $(grep "listening on" "$dir/serve.log")"
	;;
stop)
	[ -f "$dir/pid" ] || exit 0
	pid=$(cat "$dir/pid")
	kill "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	rm -f "$dir/pid"
	cat "$dir/serve.log"
	# A worker that crashed is a bug in the server or the cpu backend.
	if grep -Eq "killed by signal (4|6|7|8|11) " "$dir/serve.log"; then
		echo "a session's worker crashed"
		exit 1
	fi
	;;
*)
	echo "usage: $0 start DIR ANYGPU [tls] | stop DIR" >&2
	exit 2
	;;
esac
