#!/bin/bash
# Signals sent to vkernel itself reach the guest: SIGINT to the guest's
# foreground group (a bash trap runs), SIGTERM to the command (its default
# action ends the sandbox, status 143), and a second SIGTERM ends a guest
# that ignores the first (status 137).  Usage: hostsig.sh VKERNEL CASE
set -u
vk=$1
case_=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# Start the guest, wait until its script says "ready" (its traps are set),
# send the signals, collect.
run() {
	local script=$1; shift
	"$vk" run -- bash -c "$script" >"$out" 2>/dev/null &
	local pid=$!
	for _ in $(seq 100); do
		grep -qx ready "$out" && break
		sleep 0.1
	done
	for s in "$@"; do
		kill -"$s" "$pid"
		sleep 0.3
	done
	wait "$pid"
}

case $case_ in
int_trap)
	run 'trap "echo got INT; exit 9" INT; echo ready; sleep 5 & wait' INT
	st=$?
	[ "$st" = 9 ] && grep -qx "got INT" "$out" ||
	    { echo "FAIL: int_trap: status $st, output '$(cat "$out")'" >&2; exit 1; }
	;;
term_once)
	run 'echo ready; sleep 5' TERM
	st=$?
	[ "$st" = 143 ] || { echo "FAIL: term_once: status $st" >&2; exit 1; }
	;;
term_twice)
	run 'trap "" TERM; echo ready; sleep 5; echo survived' TERM TERM
	st=$?
	[ "$st" = 137 ] && ! grep -q survived "$out" ||
	    { echo "FAIL: term_twice: status $st" >&2; exit 1; }
	;;
*)
	echo "unknown case $case_" >&2
	exit 2 ;;
esac
echo "ok: $case_"
