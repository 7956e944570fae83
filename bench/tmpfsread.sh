#!/bin/bash
# tmpfsread.sh - reading files of vkernel's tmpfs and of the overlay's
# upper layer, vkernel next to native in one run: micro/tmpfsread.c
# (64 MiB written in 64 KiB chunks, then read back: the first pass,
# further passes, 4 KiB reads, 64-byte preads) and coreutils dd
# (`dd if=/dev/zero of=F bs=64k count=1024` then `dd if=F of=/dev/null
# bs=64k`, dd's own MB/s).  Natively both write a host tmpfs (SHM_DIR);
# under vkernel one a --tmpfs mount, the other /tmp, which is the
# overlay on / with its upper layer in vkernel's memory.  Each cell is
# the median of RUNS, the runs taken in turn so that the machine's drift
# touches all columns alike.
#
# Usage: bench/tmpfsread.sh [VKERNEL [OLD_VKERNEL]] [OUTFILE]
#   OLD_VKERNEL  another build measured in the same run (before/after)
#   OUTFILE      a path ending in .md: a dated section is appended to it
# Environment: RUNS=5, PASSES=8, SHM_DIR=/dev/shm.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VK=${1:-$HERE/../build/host-linux/vkernel}
OLD=
OUT=
case ${2:-} in
*.md) OUT=$2 ;;
*) OLD=${2:-}; OUT=${3:-} ;;
esac
RUNS=${RUNS:-5}
PASSES=${PASSES:-8}
SHM=${SHM_DIR:-/dev/shm}
work=$(mktemp -d /tmp/vk-bench-tmpfsread.XXXXXX)
trap 'rm -rf "$work"' EXIT

die() { echo "tmpfsread.sh: $*" >&2; exit 1; }
[ -x "$VK" ] || die "no vkernel at $VK"
[ -z "$OLD" ] || [ -x "$OLD" ] || die "no vkernel at $OLD"
[ "$(stat -f -c %T "$SHM")" = tmpfs ] ||
	echo "tmpfsread.sh: warning: $SHM is not a tmpfs on the host" >&2
CC=${BENCH_CC:-$(command -v musl-gcc || command -v gcc)}
"$CC" -static -O2 -std=c17 -Wall -Wextra -Wno-unused-parameter \
    -o "$work/tmpfsread" "$HERE/micro/tmpfsread.c" ||
	die "cannot build tmpfsread"
DD=$(command -v dd) || die "no dd"
cat > "$work/dd.sh" <<EOF
$DD if=/dev/zero of="\$1/vk-dd.\$\$" bs=64k count=1024 2>/dev/null &&
$DD if="\$1/vk-dd.\$\$" of=/dev/null bs=64k 2>&1 | sed -n 's/.*, \([0-9.]*\) \([GMk]B\)\/s\$/\1 \2/p'
rm -f "\$1/vk-dd.\$\$"
EOF

# Column i: its name, the vkernel (none natively) and where it writes.
cols=(native "vkernel tmpfs" "vkernel overlay")
vks=("" "$VK" "$VK")
if [ -n "$OLD" ]; then
	cols+=("old tmpfs" "old overlay")
	vks+=("$OLD" "$OLD")
fi
# Run a command in column i, its argument @DIR@ made the column's place.
run_col() {
	local i=$1 dir
	shift
	case ${cols[$i]} in
	native) dir=$SHM ;;
	*tmpfs) dir=/mnt/vkt ;;
	*overlay) dir=/tmp ;;
	esac
	set -- "${@//@DIR@/$dir}"
	case ${cols[$i]} in
	native) "$@" ;;
	*tmpfs) "${vks[$i]}" run --tmpfs "$dir" -- "$@" ;;
	*) "${vks[$i]}" run -- "$@" ;;
	esac 2>/dev/null
}

for r in $(seq "$RUNS"); do
	for i in "${!cols[@]}"; do
		run_col "$i" "$work/tmpfsread" @DIR@ "$PASSES" |
		    sed -n 's/^tmpfsread: //p' | tr -d ',' |
		    awk -v c="$i" '{ print c, "write", $2; print c, "first", $5;
			print c, "again", $8; print c, "4k", $11;
			print c, "pread64", $14 }' >> "$work/vals"
		run_col "$i" bash "$work/dd.sh" @DIR@ |
		    awk -v c="$i" '{ v = $1; if ($2 == "GB") v *= 1000;
			if ($2 == "kB") v /= 1000; print c, "dd", v }' \
		    >> "$work/vals"
	done
	echo "tmpfsread.sh: run $r of $RUNS done" >&2
done

med() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "FAILED"}'; }
label() {
	case $1 in
	write) echo "write 64 MiB in 64 KiB chunks, MB/s" ;;
	first) echo "first read after the write, 64 KiB chunks, MB/s" ;;
	again) echo "further reads (mean of $PASSES passes), 64 KiB chunks, MB/s" ;;
	4k) echo "read in 4 KiB chunks, MB/s" ;;
	pread64) echo "pread of 64 bytes, ns per call (lower is better)" ;;
	dd) echo "dd bs=64k read of a file dd wrote, MB/s (dd's figure)" ;;
	esac
}
table() {
	local head="| benchmark | native (host tmpfs)" sep="|---|---:"
	for i in "${!cols[@]}"; do
		[ "$i" = 0 ] && continue
		head+=" | ${cols[$i]}"
		sep+="|---:"
	done
	echo "$head |"
	echo "$sep|"
	for row in write first again 4k pread64 dd; do
		local n line
		n=$(awk -v r="$row" '$1 == 0 && $2 == r {print $3}' "$work/vals" | med)
		line="| $(label "$row") | $n"
		for i in "${!cols[@]}"; do
			[ "$i" = 0 ] && continue
			local v
			v=$(awk -v c="$i" -v r="$row" '$1 == c && $2 == r {print $3}' "$work/vals" | med)
			line+=" | $(awk -v v="$v" -v n="$n" 'BEGIN {
			    if (v == "FAILED" || n == "FAILED" || n == 0) print v;
			    else printf "%s (%.2fx)", v, v / n }')"
		done
		echo "$line |"
	done
}

tab=$(table)
echo "$tab"
if [ -n "$OUT" ]; then
	{
		echo
		echo "## $(date -u '+%Y-%m-%d %H:%M:%S UTC'): tmpfs and overlay reads"
		echo
		echo "- command: \`bench/tmpfsread.sh $*\`"
		echo "- vkernel: \`$VK\`${OLD:+, old: \`$OLD\`}; tree $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null)"
		echo "- host: \`$(uname -r)\`, nproc $(nproc), loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "- settings: RUNS=$RUNS PASSES=$PASSES SHM_DIR=$SHM; ratios are vkernel/native of the value shown (for MB/s higher is better)"
		echo
		echo "$tab"
	} >> "$OUT"
fi
