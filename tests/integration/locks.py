# Advisory locks between two processes, as python3 programs use them:
# lockf (fcntl record locks), waiting for one, and flock.  Prints what
# happened; fs.sh compares it with a native run.
import fcntl, os, sys, time
path = sys.argv[1]
f = open(path, "w")
fcntl.lockf(f, fcntl.LOCK_EX)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    g = open(path, "w")
    try:
        fcntl.lockf(g, fcntl.LOCK_EX | fcntl.LOCK_NB)
        print("child: got it at once")
    except OSError as e:
        print("child: busy", e.errno == 11)
    os.write(w, b"x")
    t0 = time.monotonic()
    fcntl.lockf(g, fcntl.LOCK_EX)
    print("child: got it after the parent let go", time.monotonic() - t0 > 0.1)
    sys.stdout.flush()
    os._exit(0)
os.read(r, 1)
time.sleep(0.3)
print("parent: letting go")
sys.stdout.flush()
fcntl.lockf(f, fcntl.LOCK_UN)
os.waitpid(pid, 0)
fcntl.flock(f, fcntl.LOCK_EX)
h = open(path)
try:
    fcntl.flock(h, fcntl.LOCK_SH | fcntl.LOCK_NB)
except BlockingIOError:
    print("parent: flock busy")
