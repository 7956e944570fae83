#!/bin/bash
# run.sh - vkernel benchmarks, in one run side by side with native
# execution, the bare PTRACE_SYSEMU floor and (when installed) peers.
#
# Usage: bench/run.sh [VKERNEL] [OUTFILE]
#   VKERNEL  the vkernel binary (default: <repo>/build/host-linux/vkernel)
#   OUTFILE  if given, a dated section with the table is appended to it
#
# Environment knobs:
#   REPS=3               repetitions of every measurement; tables show the median
#   BENCH_TARGET_MS=1000 in-program calibration target per measurement
#   STARTUP_RUNS=50      runs per start-up measurement
#   STARTUP_TOOL=auto    hyperfine (if installed, with python3 for its JSON) or own
#   SLEEP_MS=500         how long the guest sleeps while RSS is sampled
#   BENCH_TIMEOUT=300    seconds before one invocation counts as FAILED
#   VK_OPTS=             extra vkernel options, e.g. "--stats"
#   PEERS="strace proot" peer columns, kept only if `command -v` finds them
#   FLOOR_CROSS=0        1 adds a cross-core SYSEMU floor row (slow, ~100 us/op)
#   BENCH_BINDIR=        use prebuilt programs from there (meson's run target)
#   BENCH_CC=            compiler to try before musl-gcc and gcc
#   VK_EXE=              the executable whose RSS is the vkernel's, when VKERNEL
#                        is a wrapper script (default: VKERNEL itself)
#   FS_DIR=              where the file-system fixtures (a 64 MiB file, a
#                        10,000-entry directory) are made on the host
#                        (default: fs/ in this run's results directory)
#   FS_KEEP=0            1 keeps the fixtures after the run
#   SHM_DIR=/dev/shm     the tmpfs directory tmpfswrite writes in (host and guest)
#
# Every cell is the median of REPS runs.  The in-program benchmarks time
# themselves with CLOCK_MONOTONIC inside the guest, so vkernel start-up is
# excluded from them; the start-up row is timed from outside.  A second
# table has the file-system benchmarks, on fixtures made on the host
# before the runs.  A run that
# fails, times out or prints no result makes its cell FAILED, and the
# script goes on with the next one.  Raw output of every invocation is
# kept in bench/results/<stamp>/.

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)

REPS=${REPS:-3}
export BENCH_TARGET_MS=${BENCH_TARGET_MS:-1000}
STARTUP_RUNS=${STARTUP_RUNS:-50}
STARTUP_TOOL=${STARTUP_TOOL:-auto}
SLEEP_MS=${SLEEP_MS:-500}
TIMEOUT=${BENCH_TIMEOUT:-300}
VK_OPTS=${VK_OPTS:-}
PEERS=${PEERS-strace proot}
FLOOR_CROSS=${FLOOR_CROSS:-0}
FS_KEEP=${FS_KEEP:-0}
SHM_DIR=${SHM_DIR:-/dev/shm}

GUEST_PROGS="getpid pagetouch true_static sleeper openclose statfile fileread tmpfswrite getdents fdmany"
HOST_PROGS="sysemu_floor startup"
CFLAGS="-O2 -std=c17 -Wall -Wextra -Wno-unused-parameter"

# Targets for vkernel (see README.md).
TARGET_FLOOR_RATIO=1.3
TARGET_PAGE_RATIO=1.3
TARGET_STARTUP_NS=5000000
TARGET_RSS_KIB=4096
TARGET_OPENCLOSE_RATIO=4	# vkernel/native, time per open+close
TARGET_STAT_RATIO=4		# vkernel/native, time per stat
TARGET_READ_TPUT=0.5		# vkernel/native, throughput
TARGET_WRITE_TPUT=0.5		# vkernel/native, throughput
TARGET_GETDENTS_RATIO=3		# vkernel/native, time per listing
TARGET_FDMANY_RATIO=8		# vkernel/native, time per open or dup

# How many fds fdmany fills one table with.
FD_MANY=100000

# The file-system fixtures.  FS_FILE is what openclose and statfile use.
FS_FILE=/etc/passwd
FS_READ_MIB=64
FS_DIR_ENTRIES=10000

declare -A R		# "bench:col" -> space-separated per-rep values, or FAILED
declare -A WHY		# "bench:col" -> where to look when it FAILED
declare -A NOTE		# free-form notes per "bench:col"
PFX=()			# command prefix of the current column
FAILED_CELLS=()

log() {
	echo "[$(date +%T)] $*" >&2
	[ -n "${RESDIR:-}" ] && echo "[$(date +%T)] $*" >>"$RESDIR/run.log"
}

# ---------------------------------------------------------------- build

# Compile one program into $BINDIR.  Guests must be static, because the
# first vkernel cannot open files (so no ld.so); musl first, because
# glibc's static start-up also makes calls vkernel does not emulate yet
# (readlink, rseq).  Host tools may fall back to a dynamic gcc build.
build_one() {
	local p=$1 kind=$2 cc tmp=$BINDIR/.$1.tmp.$$

	for cc in ${BENCH_CC:-} musl-gcc gcc; do
		command -v "$cc" >/dev/null 2>&1 || continue
		# shellcheck disable=SC2086
		if "$cc" -static $CFLAGS -o "$tmp" "$HERE/micro/$p.c" \
		    2>>"$BINDIR/build.log"; then
			mv -f "$tmp" "$BINDIR/$p"
			BUILT_WITH[$p]="$cc -static"
			return 0
		fi
	done
	if [ "$kind" = host ] && command -v gcc >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		if gcc $CFLAGS -o "$tmp" "$HERE/micro/$p.c" 2>>"$BINDIR/build.log"; then
			mv -f "$tmp" "$BINDIR/$p"
			BUILT_WITH[$p]="gcc (dynamic)"
			return 0
		fi
	fi
	rm -f "$tmp"
	return 1
}

declare -A BUILT_WITH
build_programs() {
	local p ok=1

	if [ -n "${BENCH_BINDIR:-}" ]; then
		BINDIR=$(cd "$BENCH_BINDIR" && pwd) || return 1
		for p in $GUEST_PROGS $HOST_PROGS; do
			[ -x "$BINDIR/$p" ] || ok=0
		done
		if [ $ok = 1 ]; then
			for p in $GUEST_PROGS $HOST_PROGS; do
				BUILT_WITH[$p]="prebuilt in $BINDIR"
			done
			return 0
		fi
		log "some programs are missing in $BINDIR; building them there"
	else
		BINDIR=$HERE/bin
	fi
	mkdir -p "$BINDIR" || return 1
	: >"$BINDIR/build.log"
	for p in $GUEST_PROGS; do
		build_one "$p" guest || { log "build of $p failed, see $BINDIR/build.log"; return 1; }
	done
	for p in $HOST_PROGS; do
		build_one "$p" host || { log "build of $p failed, see $BINDIR/build.log"; return 1; }
	done
}

# ---------------------------------------------------------------- helpers

# Set PFX to the command prefix that runs a program in column $1.
set_prefix() {
	local -a opts

	read -r -a opts <<<"$VK_OPTS"
	case $1 in
	native) PFX=() ;;
	vkernel) PFX=("$VK" run ${opts[@]+"${opts[@]}"} --) ;;
	strace) PFX=(strace -f -o /dev/null) ;;
	proot) PFX=(proot -r /) ;;
	*) PFX=(false) ;;
	esac
}

# run_logged TAG CMD...: run CMD under a timeout with output in
# $RESDIR/TAG.{cmd,out,err}; returns CMD's exit status.
run_logged() {
	local tag=$1 rc

	shift
	printf '%q ' "$@" >"$RESDIR/$tag.cmd"
	echo >>"$RESDIR/$tag.cmd"
	timeout -k 5 "$TIMEOUT" "$@" </dev/null >"$RESDIR/$tag.out" 2>"$RESDIR/$tag.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		[ $rc -eq 124 ] && echo "timed out after ${TIMEOUT}s" >>"$RESDIR/$tag.err"
		echo "exit status $rc" >>"$RESDIR/$tag.err"
	fi
	return $rc
}

# field FILE KEY UNIT: the number in front of " UNIT" on the line
# "KEY: ..." that bench_report() prints.
field() {
	sed -n "s#^$2: .*[ ,]\([0-9][0-9.]*\) $3.*#\1#p" "$1" | head -n 1
}

# record BENCH COL VALUE TAG: add one rep's value, or mark the cell FAILED.
record() {
	if [ -n "$3" ]; then
		R[$1:$2]="${R[$1:$2]:-} $3"
		return 0
	fi
	R[$1:$2]=FAILED
	WHY[$1:$2]="$RESDIR/$4"
	# An exit status of 0 without a result line is a failure too; say so.
	grep -q . "$RESDIR/$4.err" 2>/dev/null ||
	    echo "no result in the output ($4.out)" >>"$RESDIR/$4.err"
	FAILED_CELLS+=("$1:$2")
	log "FAILED: $1 under $2 (see $RESDIR/$4.err)"
	return 1
}

skip_cell() {
	[ "${R[$1:$2]:-}" = FAILED ]
}

median() {
	# shellcheck disable=SC2086
	printf '%s\n' $1 | sort -g | awk '{ a[NR] = $1 }
	    END { if (NR == 0) exit 1
		  if (NR % 2) print a[(NR + 1) / 2]
		  else printf "%.1f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# The median of a cell, FAILED, or empty when it was never measured.
cell() {
	local v=${R[$1:$2]:-}

	case $v in
	"") ;;
	FAILED) echo FAILED ;;
	*) median "$v" ;;
	esac
}

isnum() {
	[[ ${1:-} =~ ^[0-9]+(\.[0-9]+)?$ ]]
}

fmt_ns() {
	isnum "${1:-}" || { echo "${1:-–}"; return; }
	awk -v x="$1" 'BEGIN {
		if (x < 1000) printf "%.0f ns\n", x
		else if (x < 1e6) printf "%.2f us\n", x / 1e3
		else if (x < 1e9) printf "%.2f ms\n", x / 1e6
		else printf "%.2f s\n", x / 1e9 }'
}

fmt_kib() {
	isnum "${1:-}" || { echo "${1:-–}"; return; }
	awk -v x="$1" 'BEGIN { printf "%.2f MiB\n", x / 1024 }'
}

# ratio A B: A/B as "1.23x", or – when either side is missing.
ratio() {
	if isnum "${1:-}" && isnum "${2:-}" && [ "$2" != 0 ]; then
		# Enough digits that a tiny ratio does not print as 0.00x.
		awk -v a="$1" -v b="$2" 'BEGIN { r = a / b
			if (r < 0.1) printf "%.3fx\n", r
			else if (r < 100) printf "%.2fx\n", r
			else printf "%.0fx\n", r }'
	else
		echo "–"
	fi
}

# le A B: true if A <= B numerically.
le() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'
}

# ---------------------------------------------------------------- benchmarks

# In-program benchmarks: bench_inprog NAME KEY UNIT PROG [ARGS...] runs
# PROG ARGS in every column (the floors natively) and records the number
# in front of UNIT on its "KEY:" line.  Columns alternate inside each rep,
# so slow drifts of the machine's load hit all columns alike.
bench_inprog() {
	local name=$1 key=$2 unit=$3 prog=$4 rep col tag v
	local -a args

	shift 4
	args=("$@")
	for rep in $(seq 1 "$REPS"); do
		for col in native vkernel $PEER_COLS; do
			skip_cell "$name" "$col" && continue
			set_prefix "$col"
			tag=$name.$col.$rep
			log "$name: $col (rep $rep/$REPS)"
			v=
			if run_logged "$tag" ${PFX[@]+"${PFX[@]}"} "$BINDIR/$prog" \
			    ${args[@]+"${args[@]}"}; then
				v=$(field "$RESDIR/$tag.out" "$key" "$unit")
			fi
			record "$name" "$col" "$v" "$tag"
		done
		[ "$name" = getpid ] && bench_floor "$rep"
		[ "$name" = pagetouch ] && bench_shmem_floor "$rep"
	done
}

# The host's cost of faulting in shared memfd pages, natively: what any
# RAM-file design pays per guest page.
bench_shmem_floor() {
	local rep=$1 tag=pagetouch_shmem.$1 v=

	skip_cell pagetouch floor && return 0
	log "pagetouch: native shmem floor (rep $rep/$REPS)"
	if run_logged "$tag" "$BINDIR/pagetouch" auto shmem; then
		v=$(field "$RESDIR/$tag.out" pagetouch ns/page)
	fi
	record pagetouch floor "$v" "$tag"
}

bench_floor() {
	local rep=$1 tag v w

	if ! skip_cell getpid floor; then
		tag=floor.$rep
		log "getpid: sysemu floor, same-core (rep $rep/$REPS)"
		v='' w=''
		if run_logged "$tag" "$BINDIR/sysemu_floor"; then
			v=$(field "$RESDIR/$tag.out" sysemu_floor ns/op)
			w=$(field "$RESDIR/$tag.out" sysemu_floor_regs ns/op)
			FLOOR_WHERE=$(sed -n 's/^sysemu_floor: [^,]*, [^,]*, \(.*\), no register.*/\1/p' \
			    "$RESDIR/$tag.out")
		fi
		record getpid floor "$v" "$tag"
		record getpid floor_regs "$w" "$tag"
	fi
	if [ "$FLOOR_CROSS" = 1 ] && ! skip_cell getpid floor_cross; then
		tag=floor_cross.$rep
		log "getpid: sysemu floor, cross-core (rep $rep/$REPS)"
		v=
		if run_logged "$tag" "$BINDIR/sysemu_floor" --cross --mode=bare; then
			v=$(field "$RESDIR/$tag.out" sysemu_floor ns/op)
		fi
		record getpid floor_cross "$v" "$tag"
	fi
}

# Start-up: wall time of a whole run of true_static, from outside.
startup_once() {
	local tag=$1 v=

	shift
	if [ "$STARTUP_TOOL" = hyperfine ]; then
		if run_logged "$tag" hyperfine -N --style none --warmup 3 \
		    --runs "$STARTUP_RUNS" --export-json "$RESDIR/$tag.json" \
		    -- "$(printf '%q ' "$@")"; then
			v=$(python3 -c 'import json, sys
print("%.0f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1e9))' \
			    "$RESDIR/$tag.json" 2>>"$RESDIR/$tag.err")
		fi
	else
		if run_logged "$tag" "$BINDIR/startup" "$STARTUP_RUNS" "$@"; then
			v=$(sed -n 's/^startup: .* median \([0-9]*\) ns.*/\1/p' "$RESDIR/$tag.out")
		fi
	fi
	echo "$v"
}

bench_startup() {
	local rep col tag v

	for rep in $(seq 1 "$REPS"); do
		for col in native vkernel $PEER_COLS; do
			skip_cell startup "$col" && continue
			set_prefix "$col"
			tag=startup.$col.$rep
			log "startup: $col (rep $rep/$REPS, $STARTUP_TOOL)"
			v=$(startup_once "$tag" ${PFX[@]+"${PFX[@]}"} "$BINDIR/true_static")
			record startup "$col" "$v" "$tag"
		done
	done
}

# The children of a pid.  /proc/PID/task/TID/children needs
# CONFIG_PROC_CHILDREN; without it, scan every process's parent.
children_of() {
	local f line rest

	if [ -e "/proc/$1/task/$1/children" ]; then
		cat /proc/"$1"/task/*/children 2>/dev/null
		return
	fi
	for f in /proc/[0-9]*/stat; do
		read -r line <"$f" 2>/dev/null || continue
		rest=${line##*) }
		# shellcheck disable=SC2086
		set -- "$1" $rest
		[ "${3:-}" = "$1" ] && echo "${f//[^0-9]/}"
	done
}

exe_of() {
	local e

	e=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
	echo "${e% (deleted)}"
}

# find_exe_pid TOP EXE: the process closest to TOP (TOP itself, then its
# descendants breadth first) whose executable is EXE.  The shallowest
# match is the vkernel itself even if the stubs are forks of it that
# never exec'd, and a wrapper in front of the vkernel is looked through.
find_exe_pid() {
	local -a queue=("$1")
	local p

	while [ ${#queue[@]} -gt 0 ]; do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		if [ "$(exe_of "$p")" = "$2" ]; then
			echo "$p"
			return 0
		fi
		# shellcheck disable=SC2207
		queue+=($(children_of "$p"))
	done
	return 1
}

# read_rss PID: set ANON FILE SHMEM (KiB) from /proc/PID/status.
read_rss() {
	local k v rest

	ANON='' FILE='' SHMEM=''
	while read -r k v rest; do
		case $k in
		RssAnon:) ANON=$v ;;
		RssFile:) FILE=$v ;;
		RssShmem:) SHMEM=$v ;;
		esac
	done <"/proc/$1/status" 2>/dev/null
	[ -n "$ANON" ] && [ -n "$FILE" ]
}

# descendants_rss PID: how many descendants PID has and their summed
# RssAnon+RssFile, for the notes: the stubs' own overhead is not in the
# vkernel's number, and this shows whether it hides there.
descendants_rss() {
	local -a queue
	local p n=0 sum=0

	# shellcheck disable=SC2207
	queue=($(children_of "$1"))
	while [ ${#queue[@]} -gt 0 ]; do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		if read_rss "$p"; then
			n=$((n + 1))
			sum=$((sum + ANON + FILE))
		fi
		# shellcheck disable=SC2207
		queue+=($(children_of "$p"))
	done
	echo "$n processes, RssAnon+RssFile $sum kB"
}

alive() {
	local st

	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# rss_once COL TAG: start sleeper in COL in the background and sample
# RssAnon+RssFile of the supervisor process (for native: the sleeper
# itself) every 20 ms until it exits; echo the peak in KiB, and say in
# TAG.note which process was sampled (it runs in a subshell, so it cannot
# set variables).  RssShmem is left out on purpose: for vkernel that is
# the guest RAM file.
rss_once() {
	local col=$1 tag=$2 want top pid t0 now deadline rc
	local best=0 fb_best=0 best_anon='' best_file='' best_shmem='' fb_pid='' fb_exe='' kids=''

	set_prefix "$col"
	if [ "$col" = native ]; then
		want=$(readlink -f "$BINDIR/sleeper")
	elif [ "$col" = vkernel ] && [ -n "${VK_EXE:-}" ]; then
		want=$(readlink -f "$VK_EXE")
	else
		want=$(readlink -f "$(command -v "${PFX[0]}")" 2>/dev/null)
	fi
	printf '%q ' ${PFX[@]+"${PFX[@]}"} "$BINDIR/sleeper" "$SLEEP_MS" >"$RESDIR/$tag.cmd"
	echo >>"$RESDIR/$tag.cmd"
	${PFX[@]+"${PFX[@]}"} "$BINDIR/sleeper" "$SLEEP_MS" </dev/null \
	    >"$RESDIR/$tag.out" 2>"$RESDIR/$tag.err" &
	top=$!
	t0=$(date +%s%N)
	deadline=$((t0 + (SLEEP_MS + TIMEOUT * 1000) * 1000000))
	while alive "$top"; do
		now=$(date +%s%N)
		if [ "$now" -gt "$deadline" ]; then
			kill -KILL "$top" 2>/dev/null
			echo "timed out" >>"$RESDIR/$tag.err"
			break
		fi
		if pid=$(find_exe_pid "$top" "$want") && read_rss "$pid"; then
			if [ $((ANON + FILE)) -gt "$best" ]; then
				best=$((ANON + FILE))
				best_anon=$ANON best_file=$FILE best_shmem=$SHMEM
				kids=$(descendants_rss "$pid")
				echo "pid $pid exe $want: RssAnon $ANON RssFile $FILE RssShmem $SHMEM kB; descendants: $kids" \
				    >>"$RESDIR/$tag.samples"
			fi
		elif [ $((now - t0)) -gt 100000000 ] && read_rss "$top"; then
			# Nothing runs $want (a wrapper script that exec'd
			# something else?): sample the launched process,
			# but only once any exec in it surely happened.
			fb_pid=$top fb_exe=$(exe_of "$top")
			[ $((ANON + FILE)) -gt "$fb_best" ] && fb_best=$((ANON + FILE))
		fi
		sleep 0.02
	done
	wait "$top"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "exit status $rc" >>"$RESDIR/$tag.err"
		return 1
	fi
	if [ "$best" -gt 0 ]; then
		echo "RssAnon $best_anon + RssFile $best_file kB (RssShmem $best_shmem kB not counted), pid found by exe $want; its descendants (stubs, guest): $kids" \
		    >"$RESDIR/$tag.note"
		echo "$best"
	elif [ "$fb_best" -gt 0 ]; then
		echo "no process ran $want; sampled the launched pid $fb_pid (exe $fb_exe) instead" \
		    >"$RESDIR/$tag.note"
		echo "$fb_best"
	else
		echo "no RSS sample taken" >>"$RESDIR/$tag.err"
		return 1
	fi
}

bench_rss() {
	local rep col tag v

	for rep in $(seq 1 "$REPS"); do
		for col in native vkernel $PEER_COLS; do
			skip_cell rss "$col" && continue
			tag=rss.$col.$rep
			log "rss: $col (rep $rep/$REPS)"
			v=$(rss_once "$col" "$tag")
			record rss "$col" "$v" "$tag" &&
			    NOTE[rss:$col]=$(cat "$RESDIR/$tag.note" 2>/dev/null)
		done
	done
}

# ---------------------------------------------------------------- file system

# The type of the file system PATH is on, on the host.
fs_type() {
	stat -f -c %T "$1" 2>/dev/null || echo unknown
}

# Make the fixtures on the host, where the guest sees them through the
# overlay's read-only lower layer: FS_READ_FILE, FS_READ_MIB MiB of
# random bytes (synced, so its writeback cannot disturb later runs), and
# FS_LIST_DIR with FS_DIR_ENTRIES empty files.  Fixtures of the right
# size already there (a given FS_DIR) are reused.  One that cannot be
# made is only logged: its program then fails and the cell says why.
make_fixtures() {
	FS_READ_FILE=$FS_DIR/read${FS_READ_MIB}m
	FS_LIST_DIR=$FS_DIR/dir$FS_DIR_ENTRIES
	mkdir -p "$FS_DIR" || { log "cannot make $FS_DIR"; return 1; }
	if [ "$(stat -c %s "$FS_READ_FILE" 2>/dev/null)" != $((FS_READ_MIB << 20)) ]; then
		log "making $FS_READ_FILE ($FS_READ_MIB MiB)"
		{ dd if=/dev/urandom of="$FS_READ_FILE" bs=1M count="$FS_READ_MIB" \
		    status=none && sync "$FS_READ_FILE"; } ||
		    log "cannot make $FS_READ_FILE"
	fi
	# shellcheck disable=SC2012	# the names are ours, f00000 and on
	if [ "$(ls -A "$FS_LIST_DIR" 2>/dev/null | wc -l)" != "$FS_DIR_ENTRIES" ]; then
		log "making $FS_LIST_DIR ($FS_DIR_ENTRIES empty files)"
		rm -rf "$FS_LIST_DIR"
		{ mkdir -p "$FS_LIST_DIR" && (cd "$FS_LIST_DIR" &&
		    seq -f 'f%05.0f' 0 $((FS_DIR_ENTRIES - 1)) | xargs touch); } ||
		    log "cannot make $FS_LIST_DIR"
	fi
	[ "$(fs_type "$SHM_DIR")" = tmpfs ] ||
	    log "warning: $SHM_DIR is $(fs_type "$SHM_DIR"), not tmpfs, on the host"
}

# Fixtures made in this run's results directory go at exit, unless
# FS_KEEP=1; a given FS_DIR is kept for the next run.
remove_fixtures() {
	[ "$FS_KEEP" = 1 ] || [ -z "${FS_MADE:-}" ] || rm -rf "$FS_MADE"
}

bench_fs() {
	bench_inprog openclose openclose ns/op openclose auto "$FS_FILE"
	bench_inprog statfile statfile ns/op statfile auto "$FS_FILE"
	bench_inprog fileread fileread MB/s fileread "$FS_READ_FILE"
	bench_inprog tmpfswrite tmpfswrite MB/s tmpfswrite "$SHM_DIR"
	bench_inprog getdents getdents ns/op getdents "$FS_LIST_DIR" auto \
	    $((FS_DIR_ENTRIES + 2))
	bench_inprog fdmany fdmany ns/call fdmany auto "$FD_MANY"
}

# ---------------------------------------------------------------- report

peer_cell() {	# VALUE NATIVE FORMATTER
	case ${1:-} in
	"") echo "–" ;;
	FAILED) echo FAILED ;;
	*) echo "$($3 "$1") ($(ratio "$1" "$2"))" ;;
	esac
}

# met_ge VALUE LIMIT: like met, for throughputs, where more is better.
met_ge() {
	if ! isnum "${1:-}"; then
		echo "no (${1:-not run})"
	elif le "$2" "$1"; then
		echo yes
	else
		echo "**no**"
	fi
}

met() {	# VALUE LIMIT
	if ! isnum "${1:-}"; then
		echo "no (${1:-not run})"
	elif le "$1" "$2"; then
		echo yes
	else
		echo "**no**"
	fi
}

# rnum A B: A/B as a plain number for met(); if either is not a number,
# the first of them that is not (FAILED, or empty if never run).
rnum() {
	if isnum "${1:-}" && isnum "${2:-}" && [ "$2" != 0 ]; then
		awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'
	elif ! isnum "${1:-}"; then
		echo "${1:-}"
	else
		echo "${2:-}"
	fi
}

# A page-touch cell: per page, and per 64 MiB in parentheses.
fmt_page() {
	isnum "${1:-}" || { fmt_ns "${1:-}"; return; }
	echo "$(fmt_ns "$1") ($(fmt_ns "$(awk -v x="$1" 'BEGIN { printf "%.0f", x * 16384 }')")/64 MiB)"
}

# A throughput cell: MB/s, and the time per 64 KiB chunk in parentheses.
fmt_mbs() {
	isnum "${1:-}" || { echo "${1:-–}"; return; }
	echo "$(awk -v x="$1" 'BEGIN { printf "%.0f MB/s", x }') ($(fmt_ns "$(awk -v x="$1" 'BEGIN { if (x > 0) printf "%.0f", 65536e3 / x; else print 0 }')")/chunk)"
}

# A directory-listing cell: per listing, and per entry in parentheses.
fmt_list() {
	isnum "${1:-}" || { fmt_ns "${1:-}"; return; }
	echo "$(fmt_ns "$1") ($(fmt_ns "$(awk -v x="$1" -v n=$((FS_DIR_ENTRIES + 2)) 'BEGIN { printf "%.1f", x / n }')")/entry)"
}

# fs_row LABEL BENCH FORMATTER TARGET-TEXT le|ge LIMIT: one row of the
# file-system table.  le: vkernel/native must be at most LIMIT (times);
# ge: at least LIMIT (throughputs, where the ratio is of MB/s).
fs_row() {
	local nat vk pc p m

	nat=$(cell "$2" native) vk=$(cell "$2" vkernel)
	pc=
	for p in $PEER_COLS; do
		pc="$pc $(peer_cell "$(cell "$2" "$p")" "$nat" "$3") |"
	done
	if [ "$5" = ge ]; then
		m=$(met_ge "$(rnum "$vk" "$nat")" "$6")
	else
		m=$(met "$(rnum "$vk" "$nat")" "$6")
	fi
	echo "| $1 | $($3 "$nat") | $($3 "$vk") | $(ratio "$vk" "$nat") |$pc $4 | $m |"
}

fs_table() {
	local p hdr sep

	hdr="| file system | native | vkernel | vkernel/native |"
	sep="|---|---:|---:|---:|"
	for p in $PEER_COLS; do
		set_prefix "$p"
		hdr="$hdr $(printf '%s' "${PFX[*]}" | sed 's| -o /dev/null||') |"
		sep="$sep---:|"
	done
	echo "$hdr target | met |"
	echo "$sep---|---|"
	fs_row "open+close of $FS_FILE (raw openat O_RDONLY\|O_CLOEXEC), per pair" openclose fmt_ns \
	    "vkernel ≤ ${TARGET_OPENCLOSE_RATIO}x native" le "$TARGET_OPENCLOSE_RATIO"
	fs_row "stat (raw newfstatat) of $FS_FILE, per call" statfile fmt_ns \
	    "vkernel ≤ ${TARGET_STAT_RATIO}x native" le "$TARGET_STAT_RATIO"
	fs_row "sequential read of a $FS_READ_MIB MiB host file in 64 KiB chunks, lseek 0 per pass (ratio of MB/s)" \
	    fileread fmt_mbs "vkernel ≥ ${TARGET_READ_TPUT}x native" ge "$TARGET_READ_TPUT"
	fs_row "write of 64 MiB to a new file in $SHM_DIR (tmpfs) in 64 KiB chunks, ftruncate 0 per pass (ratio of MB/s)" \
	    tmpfswrite fmt_mbs "vkernel ≥ ${TARGET_WRITE_TPUT}x native" ge "$TARGET_WRITE_TPUT"
	fs_row "getdents64 listing of a $FS_DIR_ENTRIES-file host directory (32 KiB buffer, open to close), per listing" \
	    getdents fmt_list "vkernel ≤ ${TARGET_GETDENTS_RATIO}x native" le "$TARGET_GETDENTS_RATIO"
	fs_row "$FD_MANY fds in one table, raw openat of /dev/null and dup in turn (each the lowest free fd), then close_range, per call" \
	    fdmany fmt_ns "vkernel ≤ ${TARGET_FDMANY_RATIO}x native" le "$TARGET_FDMANY_RATIO"
}

# What is left of total ns after n trapped calls of g ns each: "X is
# left", or, when run-to-run noise makes the calls alone cost more, says so.
fmt_left() {
	local left

	left=$(awk -v t="$1" -v n="$2" -v g="$3" 'BEGIN { printf "%.0f", t - n * g }')
	if [ "$left" -gt 0 ]; then
		echo "$(fmt_ns "$left") is left"
	else
		echo "nothing measurable is left (these runs' getpid cost more than the whole call)"
	fi
}

# The notes on the file-system table.
fs_notes() {
	local gvk gnat oc st

	echo "- File system: openclose and statfile use $FS_FILE; fileread reads \`${FS_READ_FILE#"$ROOT"/}\` ($FS_READ_MIB MiB from /dev/urandom on the host's $(fs_type "$FS_DIR"), in the page cache after the first pass); getdents lists \`${FS_LIST_DIR#"$ROOT"/}\` ($FS_DIR_ENTRIES empty files, $((FS_DIR_ENTRIES + 2)) entries with . and ..), which the guest sees through the overlay's read-only host layer; tmpfswrite writes in $SHM_DIR, on the host a $(fs_type "$SHM_DIR"), in the vkernel guest vkernel's own tmpfs. MB = 10^6 bytes. The fixtures were $( [ "$FS_KEEP" = 1 ] || [ -z "${FS_MADE:-}" ] && echo kept || echo "removed after the run")."
	gvk=$(cell getpid vkernel) gnat=$(cell getpid native)
	oc=$(cell openclose vkernel) st=$(cell statfile vkernel)
	if isnum "$gvk" && isnum "$gnat"; then
		if isnum "$oc"; then
			echo "- open+close under vkernel is two trapped calls: 2 × its getpid ($(fmt_ns "$(awk -v g="$gvk" 'BEGIN { print 2 * g }')")) is interception, $(fmt_left "$oc" 2 "$gvk") for vkernel's own open and close (natively the pair is $(fmt_ns "$(cell openclose native)") in all)."
		fi
		if isnum "$st"; then
			echo "- stat under vkernel is one trapped call: $(fmt_ns "$gvk") is interception, $(fmt_left "$st" 1 "$gvk") for vkernel's own lookup and stat (natively $(fmt_ns "$(cell statfile native)") in all)."
		fi
	fi
	echo "- fdmany filled its table with $(fdmany_count native) fds natively and $(fdmany_count vkernel) under vkernel (fewer than $FD_MANY where the hard RLIMIT_NOFILE could not be raised)."
}

# How many fds fdmany's first rep in column COL made, or "?".
fdmany_count() {
	local n

	n=$(sed -n 's/^fdmany: .* \([0-9][0-9]*\) fds,.*/\1/p' "$RESDIR/fdmany.$1.1.out" 2>/dev/null)
	echo "${n:-?}"
}

table() {
	local nat vk fl flr flx pc p hdr sep

	hdr="| benchmark | native | vkernel | vkernel/native | SYSEMU floor | vkernel/floor |"
	sep="|---|---:|---:|---:|---:|---:|"
	for p in $PEER_COLS; do
		set_prefix "$p"
		hdr="$hdr $(printf '%s' "${PFX[*]}" | sed 's| -o /dev/null||') |"
		sep="$sep---:|"
	done
	echo "$hdr target | met |"
	echo "$sep---|---|"

	nat=$(cell getpid native) vk=$(cell getpid vkernel)
	fl=$(cell getpid floor) flr=$(cell getpid floor_regs)
	pc=
	for p in $PEER_COLS; do
		pc="$pc $(peer_cell "$(cell getpid "$p")" "$nat" fmt_ns) |"
	done
	echo "| getpid, per call | $(fmt_ns "$nat") | $(fmt_ns "$vk") | $(ratio "$vk" "$nat") | $(fmt_ns "$fl") | $(ratio "$vk" "$fl") |$pc vkernel ≤ ${TARGET_FLOOR_RATIO}x floor | $(met "$(rnum "$vk" "$fl")" "$TARGET_FLOOR_RATIO") |"
	pc=
	for p in $PEER_COLS; do pc="$pc – |"; done
	echo "| getpid vs floor with GETREGS+POKEUSER(rax) | $(fmt_ns "$nat") | $(fmt_ns "$vk") | $(ratio "$vk" "$nat") | $(fmt_ns "$flr") | $(ratio "$vk" "$flr") |$pc (info) | – |"
	if [ "$FLOOR_CROSS" = 1 ]; then
		flx=$(cell getpid floor_cross)
		echo "| getpid vs cross-core floor | $(fmt_ns "$nat") | $(fmt_ns "$vk") | $(ratio "$vk" "$nat") | $(fmt_ns "$flx") | $(ratio "$vk" "$flx") |$pc (info) | – |"
	fi

	nat=$(cell pagetouch native) vk=$(cell pagetouch vkernel)
	fl=$(cell pagetouch floor)
	pc=
	for p in $PEER_COLS; do
		pc="$pc $(peer_cell "$(cell pagetouch "$p")" "$nat" fmt_ns) |"
	done
	echo "| page touch, per 4 KiB page (64 MiB mmap+touch+munmap; floor: native on shared memfd pages) | $(fmt_page "$nat") | $(fmt_page "$vk") | $(ratio "$vk" "$nat") | $(fmt_page "$fl") | $(ratio "$vk" "$fl") |$pc vkernel ≤ ${TARGET_PAGE_RATIO}x native | $(met "$(rnum "$vk" "$nat")" "$TARGET_PAGE_RATIO") |"

	nat=$(cell startup native) vk=$(cell startup vkernel)
	pc=
	for p in $PEER_COLS; do
		pc="$pc $(peer_cell "$(cell startup "$p")" "$nat" fmt_ns) |"
	done
	echo "| start-up of static true, wall (median of $STARTUP_RUNS, $STARTUP_TOOL) | $(fmt_ns "$nat") | $(fmt_ns "$vk") | $(ratio "$vk" "$nat") | – | – |$pc vkernel ≤ 5 ms | $(met "$vk" "$TARGET_STARTUP_NS") |"

	nat=$(cell rss native) vk=$(cell rss vkernel)
	pc=
	for p in $PEER_COLS; do
		pc="$pc $(fmt_kib "$(cell rss "$p")") |"
	done
	echo "| supervisor RssAnon+RssFile while the guest sleeps (native: the guest itself) | $(fmt_kib "$nat") | $(fmt_kib "$vk") | – | – | – |$pc vkernel ≤ 4 MiB | $(met "$vk" "$TARGET_RSS_KIB") |"
}

notes() {
	local c p

	echo
	echo "- Every cell is the median of $REPS runs; in-program numbers are timed inside the guest (CLOCK_MONOTONIC), start-up from outside."
	echo "- SYSEMU floor: \`sysemu_floor\`, a tracer that only resumes a raw-getpid tracee with PTRACE_SYSEMU, ${FLOOR_WHERE:-same-core}."
	echo "- Programs: $(for p in $GUEST_PROGS $HOST_PROGS; do printf '%s: %s; ' "$p" "${BUILT_WITH[$p]:-?}"; done)"
	fs_notes
	for c in native vkernel $PEER_COLS; do
		[ -n "${NOTE[rss:$c]:-}" ] && echo "- RSS $c: ${NOTE[rss:$c]} (last rep)."
	done
	echo "- Per-rep values: $(printf '%s\n' "${!R[@]}" | sort | while read -r c; do printf '%s =%s; ' "$c" "${R[$c]}"; done | tr -s ' ')"
	if [ ${#FAILED_CELLS[@]} -gt 0 ]; then
		echo "- FAILED cells (logs in ${RESDIR#"$ROOT"/}/):"
		for c in "${FAILED_CELLS[@]}"; do
			echo "  - $c: \`$(tail -n 3 "${WHY[$c]}.err" 2>/dev/null | tr '\n' ' ' | cut -c1-200)\`"
		done
	fi
}

# ---------------------------------------------------------------- main

main() {
	local out table_md p

	CMDLINE=$(printf '%q ' "$0" "$@")
	CMDLINE=${CMDLINE% }
	VK=${1:-$ROOT/build/host-linux/vkernel}
	OUTFILE=${2:-}
	case $VK in
	*/*) case $VK in /*) ;; *) VK=$PWD/$VK ;; esac ;;
	*) VK=$(command -v "$VK" || echo "$PWD/$VK") ;;
	esac
	case $OUTFILE in "" | /*) ;; *) OUTFILE=$PWD/$OUTFILE ;; esac
	[ -x "$VK" ] || log "warning: $VK is not executable; its cells will be FAILED"

	RESDIR=$HERE/results/$(date +%Y%m%d-%H%M%S)-$$
	mkdir -p "$RESDIR" || exit 1
	build_programs || { log "cannot build the benchmark programs"; exit 1; }
	if [ -n "${FS_DIR:-}" ]; then
		case $FS_DIR in /*) ;; *) FS_DIR=$PWD/$FS_DIR ;; esac
	else
		FS_DIR=$RESDIR/fs FS_MADE=$RESDIR/fs
	fi
	trap remove_fixtures EXIT
	make_fixtures

	PEER_COLS=
	for p in $PEERS; do
		case $p in
		strace | proot) command -v "$p" >/dev/null 2>&1 && PEER_COLS="$PEER_COLS $p" ;;
		*) log "unknown peer $p ignored" ;;
		esac
	done
	if [ "$STARTUP_TOOL" = auto ]; then
		STARTUP_TOOL=own
		command -v hyperfine >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 &&
		    STARTUP_TOOL=hyperfine
	fi
	LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
	log "vkernel: $VK; peers:${PEER_COLS:- none}; raw logs in $RESDIR"

	bench_inprog getpid getpid ns/op getpid
	bench_inprog pagetouch pagetouch ns/page pagetouch
	bench_startup
	bench_rss
	bench_fs

	table_md=$(table; printf '\n### File system\n\n'; fs_table)
	out=$(printf '%s\n%s\n' "$table_md" "$(notes)")
	echo
	echo "$out"

	if [ -n "$OUTFILE" ]; then
		# shellcheck disable=SC2094	# only tested for emptiness
		{
			[ -s "$OUTFILE" ] || printf '# vkernel benchmark results\n\nAppended by bench/run.sh, newest last.\n'
			echo
			echo "## $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
			echo
			echo "- command: \`$CMDLINE\`"
			echo "- host: \`$(uname -r)\`, nproc $(nproc), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), loadavg before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
			echo "- vkernel: \`$VK\`, tree $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "without commits")$(git -C "$ROOT" status --porcelain 2>/dev/null | grep -q . && echo " (dirty)")"
			echo "- settings: REPS=$REPS BENCH_TARGET_MS=$BENCH_TARGET_MS STARTUP_RUNS=$STARTUP_RUNS SLEEP_MS=$SLEEP_MS VK_OPTS='$VK_OPTS'"
			echo
			echo "$out"
		} >>"$OUTFILE"
		log "appended to $OUTFILE"
	fi
	[ ${#FAILED_CELLS[@]} -eq 0 ]
}

# Sourcing the file (for testing its helpers) must not run the benchmarks.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi
