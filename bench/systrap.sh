#!/bin/bash
# systrap.sh - a getpid round trip natively, under vkernel's platforms and
# through the bare mechanisms a systrap platform is built from, in one
# run: each row the median of N runs, the rows taken in turn so that the
# machine's drift touches them alike.
#
# Usage: bench/systrap.sh VKERNEL [N [ITERS]]
#   native          bench/micro/getpid.c natively
#   vkernel ptrace  the same under "vkernel run --platform=ptrace"
#   vkernel systrap the same under "vkernel run --platform=systrap"
#                   (syscall(2): a site the platform does not patch)
#   site ...        bench/micro/sitecall.c: getpid, open+close of
#                   /etc/passwd and stat of it, each from a site
#                   "mov $NR, %eax; syscall": natively, under ptrace,
#                   under systrap with patching off (VKERNEL_NO_PATCH=1:
#                   every call traps) and on (the site patched)
#   trap            sigsys_floor trap: seccomp RET_TRAP, SIGSYS answered
#                   in the thread, no tracer (the floor of a trap hand-off)
#   trap, sibling   sigsys_floor sibling: the same in an untraced thread of
#                   a process whose other thread a tracer holds
#   trap, traced    sigsys_floor traced: the same while a tracer holds the
#                   thread; every SIGSYS is then also a ptrace stop
#   SYSEMU          sigsys_floor sysemu: a bare PTRACE_SYSEMU tracer
#   hand-off        handoff_floor: a post and an answer of one word
#                   between threads spinning on two CPUs, no trap: the
#                   floor of a patched site (one cache line each way)
# Prints a Markdown table: ns per getpid and the ratio to native.
set -u
VK=${1:?usage: systrap.sh VKERNEL [N [ITERS]]}
N=${2:-5}
ITERS=${3:-100000}
here=$(dirname "$0")
work=$(mktemp -d /tmp/vk-bench-systrap.XXXXXX)
trap 'rm -rf "$work"' EXIT

cc=musl-gcc
command -v musl-gcc >/dev/null || cc=cc
$cc -static -O2 -o "$work/getpid" "$here/micro/getpid.c" || exit 1
$cc -static -O2 -o "$work/site" "$here/micro/sitecall.c" || exit 1
$cc -static -O2 -pthread -o "$work/handoff_floor" \
    "$here/micro/handoff_floor.c" || exit 1
# seccomp's and ptrace's UAPI headers: musl-gcc does not see them.
cc -static -O2 -o "$work/sf" "$here/micro/sigsys_floor.c" || exit 1

declare -A label
# One row per line: its name (a mode of sigsys_floor but native and
# ptrace) and the label the table gives it.
sites=(getpid openclose stat)
rows=(native ptrace systrap)
for c in "${sites[@]}"; do
	rows+=("$c-native" "$c-ptrace" "$c-trapped" "$c-patched")
done
rows+=(trap sibling traced sysemu handoff)
while IFS='|' read -r name text; do
	label[$name]=$text
done <<'EOF2'
native|native getpid
ptrace|vkernel --platform=ptrace
systrap|vkernel --platform=systrap
trap|seccomp trap, SIGSYS answered in the thread, untraced
sibling|seccomp trap, untraced thread of a traced process
traced|seccomp trap, SIGSYS answered in the thread, traced
sysemu|bare PTRACE_SYSEMU tracer
handoff|hand-off of one word between two spinning CPUs, no trap
EOF2
for c in "${sites[@]}"; do
	label[$c-native]="$c at a site, native"
	label[$c-ptrace]="$c at a site, --platform=ptrace"
	label[$c-trapped]="$c at a site, --platform=systrap, VKERNEL_NO_PATCH=1"
	label[$c-patched]="$c at a site, --platform=systrap, patched"
done

cmd() {
	case $1 in
	native) echo "$work/getpid $ITERS" ;;
	ptrace|systrap) echo "$VK run --platform=$1 -- $work/getpid $ITERS" ;;
	*-native) echo "$work/site ${1%-*} $ITERS" ;;
	*-ptrace) echo "$VK run --platform=ptrace -- $work/site ${1%-*} $ITERS" ;;
	*-trapped) echo "env VKERNEL_NO_PATCH=1 $VK run --platform=systrap -- $work/site ${1%-*} $ITERS" ;;
	*-patched) echo "$VK run --platform=systrap -- $work/site ${1%-*} $ITERS" ;;
	handoff) echo "$work/handoff_floor $ITERS" ;;
	*) echo "$work/sf $1 $ITERS" ;;
	esac
}

# ns/op of one run, from the "NAME: N iters, X ns/op" line; FAILED if none.
one() {
	$1 2>/dev/null | sed -n 's/.* iters, \([0-9.]*\) ns\/op.*/\1/p' |
		grep . || echo FAILED
}
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for _ in $(seq "$N"); do
	for r in "${rows[@]}"; do
		one "$(cmd "$r")" >> "$work/r.$r"
	done
done
echo "| call through | ns per call | x native |"
echo "|---|---:|---:|"
for r in "${rows[@]}"; do
	# Each site row against its own call natively; the rest getpid's.
	case $r in
	*-*) base=$(med < "$work/r.${r%-*}-native") ;;
	*) base=$(med < "$work/r.native") ;;
	esac
	m=$(med < "$work/r.$r")
	x=$(awk -v m="$m" -v b="$base" 'BEGIN { if (m + 0 > 0 && b + 0 > 0)
		printf "%.1f", m / b; else print "-" }')
	echo "| ${label[$r]} | $m | $x |"
done
