#!/bin/bash
# Real programs with threads inside vkernel against native runs: python3's
# threading, thread pools, queues and conditions; multiprocessing (forked,
# forkserver and spawned workers, pipes, semaphores in shared memory, a
# Manager); asyncio with subprocesses and local sockets; make -j2
# building a small C project.  Usage: threads.sh VKERNEL CASE
set -u
vk=$1
case_=$2
work=$(mktemp -d /tmp/vk-threads.XXXXXX)
trap 'rm -rf "$work"' EXIT

. "$(dirname "$0")/compare.sh"

case $case_ in
python_threads)
	cat > "$work/t.py" <<'PY'
import threading, concurrent.futures, queue
lock = threading.Lock()
total = [0]
def work(n):
    s = sum(range(n))
    with lock:
        total[0] += s
    return s
ts = [threading.Thread(target=work, args=(10000 * (k + 1),)) for k in range(8)]
for t in ts: t.start()
for t in ts: t.join()
print("threads", total[0], threading.active_count())
with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
    print("pool", sum(ex.map(work, range(100, 140))))
q = queue.Queue()
def prod():
    for i in range(2000): q.put(i)
    q.put(None)
threading.Thread(target=prod).start()
s = 0
while (v := q.get()) is not None: s += v
print("queue", s)
c = threading.Condition()
ready = []
def waiter():
    with c:
        c.wait_for(lambda: ready)
        print("woken with", ready[0])
t = threading.Thread(target=waiter); t.start()
with c:
    ready.append(7); c.notify_all()
t.join()
b = threading.Barrier(3)
r = []
def at_barrier(i):
    b.wait(); r.append(i)
ts = [threading.Thread(target=at_barrier, args=(i,)) for i in range(3)]
for t in ts: t.start()
for t in ts: t.join()
print("barrier", sorted(r))
PY
	same python3 "$work/t.py" ;;
python_multiprocessing)
	cat > "$work/m.py" <<'PY'
import multiprocessing as mp
def sq(x): return x * x
if __name__ == "__main__":
    mp.set_start_method("fork")
    with mp.Pool(2) as p:
        print("pool", sum(p.map(sq, range(200))))
    q = mp.Queue()
    ps = [mp.Process(target=q.put, args=(i,)) for i in range(3)]
    for p in ps: p.start()
    print("queue", sorted(q.get() for _ in ps))
    for p in ps: p.join()
    print("exit", [p.exitcode for p in ps])
    lock = mp.Lock(); v = mp.Value("i", 0)
    def bump(n):
        for _ in range(n):
            with lock: v.value += 1
    ps = [mp.Process(target=bump, args=(200,)) for _ in range(2)]
    for p in ps: p.start()
    for p in ps: p.join()
    print("value", v.value)
    # forkserver passes descriptors over a local socket; a Manager serves
    # over one bound in /tmp.
    for m in ("forkserver", "spawn"):
        with mp.get_context(m).Pool(2) as p:
            print(m, sum(p.map(sq, range(50))))
    with mp.Manager() as man:
        d = man.dict(); d["k"] = 1; l = man.list(range(3))
        print("manager", dict(d), list(l))
PY
	same python3 "$work/m.py" ;;
python_asyncio)
	cat > "$work/a.py" <<'PY'
import asyncio, os, socket, subprocess, tempfile
async def sq(n):
    await asyncio.sleep(0.01 * n)
    return n * n
async def main():
    print("gather", await asyncio.gather(*(sq(i) for i in range(5))))
    q = asyncio.Queue()
    async def prod():
        for i in range(50): await q.put(i)
        await q.put(None)
    async def cons():
        s = 0
        while (x := await q.get()) is not None: s += x
        return s
    print("queue", (await asyncio.gather(prod(), cons()))[1])
    p = await asyncio.create_subprocess_exec("sh", "-c", "echo sub; exit 3",
        stdout=asyncio.subprocess.PIPE)
    out, _ = await p.communicate()
    print("subprocess", out, p.returncode)
    d = tempfile.mkdtemp()
    path = os.path.join(d, "sock")
    async def handle(r, w):
        line = await r.readline()
        w.write(line.upper()); await w.drain(); w.close()
    srv = await asyncio.start_unix_server(handle, path)
    r, w = await asyncio.open_unix_connection(path)
    w.write(b"over a unix socket\n"); await w.drain()
    print("server", await r.readline())
    w.close(); srv.close(); await srv.wait_closed()
    os.unlink(path); os.rmdir(d)
asyncio.run(main())
a, b = socket.socketpair()
rd, wr = os.pipe()
socket.send_fds(a, [b"fd"], [wr])
msg, fds, _, _ = socket.recv_fds(b, 16, 1)
os.write(fds[0], b"through a passed pipe")
print("fds", msg, os.read(rd, 64))
print("run", subprocess.run(["echo", "done"], capture_output=True).stdout)
PY
	same python3 "$work/a.py" ;;
make_j2)
	command -v make >/dev/null && command -v gcc >/dev/null ||
		{ echo "no make or gcc"; exit 77; }
	mkdir "$work/src"
	for i in 1 2 3 4 5 6; do
		printf 'int f%d(void) { return %d; }\n' "$i" "$((i * i))" > "$work/src/f$i.c"
	done
	cat > "$work/src/main.c" <<'C'
#include <stdio.h>
int f1(void), f2(void), f3(void), f4(void), f5(void), f6(void);
int main(void) { printf("sum %d\n", f1() + f2() + f3() + f4() + f5() + f6()); return 0; }
C
	printf 'OBJS = main.o f1.o f2.o f3.o f4.o f5.o f6.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) -O1 -c $< -o $@\n' > "$work/src/Makefile"
	# The sandbox builds in its own copy in /tmp, in memory.
	out=$("$vk" run -- bash -c "cp -r $work/src /tmp/mk && make -s -C /tmp/mk -j2 && /tmp/mk/prog" 2>/dev/null)
	st=$?
	if [ "$st" != 0 ] || [ "$out" != "sum 91" ]; then
		echo "FAIL: make_j2: status $st, output '$out'" >&2
		exit 1
	fi
	if [ -e "$work/src/main.o" ]; then
		echo "FAIL: make_j2: the build reached the host" >&2
		exit 1
	fi
	echo "ok: make_j2" ;;
*)
	echo "unknown case $case_" >&2
	exit 2 ;;
esac
