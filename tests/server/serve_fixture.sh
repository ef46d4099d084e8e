#!/bin/sh
# serve_fixture.sh start DIR ANYGPU | stop DIR
# Starts `anygpu serve` (cpu backend) on the Unix socket DIR/sock with its
# state in DIR, detached from CTest's pipes, and waits until it listens; or
# stops it and shows its log (one line per session).
set -eu
cmd=$1 dir=$2

case $cmd in
start)
	anygpu=$3
	mkdir -p "$dir"
	if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
		kill "$(cat "$dir/pid")" || true
		sleep 1
	fi
	rm -f "$dir/sock" "$dir/pid" "$dir/serve.log"
	setsid "$anygpu" serve --backend cpu --unix "$dir/sock" --state-dir "$dir" \
		</dev/null >"$dir/serve.log" 2>&1 &
	echo $! >"$dir/pid"
	i=0
	while [ ! -S "$dir/sock" ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "anygpu serve did not start:"
			cat "$dir/serve.log"
			exit 1
		fi
		sleep 0.1
	done
	echo "anygpu serve listening on unix:$dir/sock (pid $(cat "$dir/pid"))"
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
	echo "usage: $0 start DIR ANYGPU | stop DIR" >&2
	exit 2
	;;
esac
