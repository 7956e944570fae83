#!/bin/bash
# parbuild.sh - compiles at -j1 and -jJOBS, natively and under each
# vkernel variant in one run: COUNT of this tree's own C files (every
# STEP-th compile of vkern/ in a build directory's
# compile_commands.json, the commands as meson gives them), by make,
# objects in a scratch directory.  A parallel build's cost under vkernel
# in a minute where the self-build row of fastpath.sh takes half an hour.
# Each cell is the median of N wall times (vkernel's start-up included),
# the columns taken in turn; objects are removed before each run.
#
# Usage: bench/parbuild.sh [VKERNEL [N]] [OUTFILE.md]
# Environment:
#   VARIANTS  "LABEL=OPTIONS;..." of "vkernel run" (default
#             "ptrace=--platform=ptrace;systrap=--platform=systrap")
#   BUILD_DIR a configured build directory (default build)
#   JOBS      make's -j for the parallel column (default 2)
#   COUNT=16, STEP=6
set -u
NAME=parbuild
N=3
. "$(dirname "${BASH_SOURCE[0]}")/variants.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-2}
COUNT=${COUNT:-16}
STEP=${STEP:-6}
die() { echo "parbuild.sh: $*" >&2; exit 1; }
[ -f "$BUILD_DIR/compile_commands.json" ] ||
	die "no $BUILD_DIR/compile_commands.json (meson setup it first)"
command -v make >/dev/null || die "needs make"
work=$(mktemp -d /tmp/vk-bench-parbuild.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The Makefile: one rule a compile, run in the build directory, each
# writing its object into $work/obj.
python3 - "$BUILD_DIR/compile_commands.json" "$work" "$COUNT" "$STEP" <<'EOF' || die "cannot write the Makefile"
import json, shlex, sys
db, work, count, step = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cmds = [e for e in json.load(open(db))
        if "/vkern/" in e["file"] and e["file"].endswith(".c")][::step][:count]
if len(cmds) < count:
    sys.exit("only %d compiles" % len(cmds))
with open(work + "/Makefile", "w") as f:
    objs = ["%s/obj/%d.o" % (work, i) for i in range(len(cmds))]
    f.write("all: %s\n" % " ".join(objs))
    for o, e in zip(objs, cmds):
        argv, skip = [], False
        for a in shlex.split(e["command"]):
            if skip:
                skip = False
            elif a in ("-o", "-MQ", "-MF"):
                skip = True
            elif a != "-MD" and not a.startswith("-fdiagnostics"):
                argv.append(a)
        f.write("%s:\n\tcd %s && %s -o %s\n" % (o, shlex.quote(e["directory"]),
                " ".join(shlex.quote(a) for a in argv), o))
EOF

# ns of one make -jJ in column c, or FAILED.
one() {
	local j=$1 c=$2 pre=() t0 t1
	if [ "$c" != native ]; then
		read -r -a o <<< "${opts[$c]}"
		pre=("$VK" run "${o[@]}" --)
	fi
	rm -rf "$work/obj"
	mkdir "$work/obj"
	t0=$(date +%s%N)
	"${pre[@]}" make -s -j"$j" -C "$work" >/dev/null 2>&1 || { echo FAILED; return; }
	t1=$(date +%s%N)
	echo $((t1 - t0))
}

for _ in $(seq "$N"); do
	for j in 1 "$JOBS"; do
		for c in "${cols[@]}"; do
			one "$j" "$c" >> "$work/j$j.$c"
		done
	done
done

ms() { awk -v x="$1" 'BEGIN { if (x + 0 > 0) printf "%.0f ms", x / 1e6; else print "FAILED" }'; }
table=$(
	variants_head make
	for j in 1 "$JOBS"; do
		b=$(med < "$work/j$j.native")
		line="| -j$j, $COUNT compiles | $(ms "$b") |"
		for c in "${cols[@]:1}"; do
			m=$(med < "$work/j$j.$c")
			line+=" $(ms "$m") | $(awk -v m="$m" -v b="$b" 'BEGIN { if (m + 0 > 0 && b + 0 > 0) printf "%.2fx", m / b; else print "-" }') |"
		done
		echo "$line"
	done
)
echo "$table"
variants_report "parallel compiles" "VARIANTS='$VARIANTS' JOBS=$JOBS" "$table"
