"""How many BLAS threads a GEMM-shaped kernel gets: decided per call from its size and
from how busy the other processes keep the CPUs.

Why: a multi-threaded BLAS call waits for its slowest thread. When another process
holds a core, that thread waits for a time slice (milliseconds), so a GEMM of a
hundred microseconds can take 100x longer with two threads than with one (measured
on a 2-core host: 32x5408 @ 5408x128 took 140 ms with 2 OpenBLAS threads beside a
busy neighbour, 0.55 ms with one). Large GEMMs on idle cores still gain (1000^3:
0.55x the one-thread time with 2 threads). So:

* a GEMM with fewer than `WORK_PER_THREAD` multiply-adds per thread runs on fewer
  threads, and one below `MULTI_MIN` multiply-adds on one;
* threads beyond the cores left idle by other processes are not used: their CPU time
  is read from /proc/stat (less our own, from the process's CPU time) at most every
  `SAMPLE_S` seconds, only when a GEMM big enough to want several threads runs;
* `tf.config.threading.set_intra_op_parallelism_threads(n)` with n > 0 fixes n
  threads for every op (the policy is off); 0 turns the policy back on.

Kernels call `matmul(a, b)`, `gemm(m, n, k)` or `work(mnk)` once before their BLAS call. The
common case (the count wanted is the count set) is a multiplication and two
comparisons; threadpoolctl's controller is built once, and the BLAS is told only
when the count changes. Without threadpoolctl there is no policy (BLAS keeps its
own threads) and no error; without /proc/stat (not Linux) the size rule alone decides.
Counts set behind tensorlet's back (a user's own threadpoolctl limits) are not seen:
the next switch overrides them; tf.config.threading is the way to fix a count.
"""
import os
import time

__all__ = ["gemm", "matmul", "einsum", "work", "set_fixed", "set_policy", "current",
           "default_threads", "policy_enabled", "hand_back"]

# NOTE: OpenBLAS runs GEMMs of m*n*k <= 65536 * 4 on one thread by itself, so those
# need no decision at all (and graphs of such products, as W1's, pay nothing).
FREE = 262144
# multiply-adds each thread must get before a second one helps (measured on this
# project's 2-core host: 2 threads gain 10% at 2e6, 35-45% from 6e6).
WORK_PER_THREAD = 2_000_000
# NOTE: below this many multiply-adds a GEMM runs on one thread even on idle cores: a
# second OpenBLAS thread gains 10-35 % on the call itself, but then spins for a while
# after it, holding the core that the kernel-piece pool and the next ops want. On an
# idle 2-core host (medians of 3 rounds, ms; 0 / 7M / 16M here): the MNIST convnet step
# (its 6.2M conv products) 19.8 / 15.4 / 14.0; a bare chain of 8M products 1.15 / 1.14 /
# 1.85; LSTM, Transformer, W2, W5 and the demo's fit epoch within noise at 7M.
MULTI_MIN = 7_000_000
# NOTE: a long, thin product (a filter gradient: 9x21632 @ 21632x32) splits badly:
# it ran 1.22x slower on 2 threads than on 1 on an idle 2-core host.
OUT_PER_THREAD = 1024
SAMPLE_S = 0.25

_set = None      # ctypes-backed setter of the BLAS libraries' thread count
_max = 1         # the user's default BLAS thread count (read once)
_cur = None      # count last set here (None: never set)
_fixed = 0       # tf.config.threading's intra-op count (0: the policy decides)
_enabled = None  # None until the first call initialises
_saved = None    # the count before tf.config.threading fixed one
_ncpu = 1
_avail = 1       # cores the other processes leave us (from the last sample)
_next_sample = 0.0
_last = None     # (wall, busy jiffies of all CPUs, our CPU seconds)
_HZ = 100


def _init():
  global _set, _max, _enabled, _ncpu, _avail, _HZ
  _enabled = False
  try:
    import threadpoolctl
  except ImportError:
    return
  try:
    libs = threadpoolctl.ThreadpoolController().select(user_api="blas").lib_controllers
  except Exception:  # noqa: BLE001 - an unusual BLAS: leave its threads alone
    return
  if not libs:
    return
  _max = max(int(getattr(c, "num_threads", 1) or 1) for c in libs)
  setters = [c.set_num_threads for c in libs]
  _set = setters[0] if len(setters) == 1 else (lambda n: [s(n) for s in setters])
  try:
    _ncpu = len(os.sched_getaffinity(0))
  except (AttributeError, OSError):
    _ncpu = os.cpu_count() or 1
  try:
    _HZ = os.sysconf("SC_CLK_TCK")
  except (AttributeError, ValueError, OSError):
    pass
  _avail = 1  # until the first sample says the cores are free
  _enabled = _max > 1


def _busy_jiffies():
  """Busy jiffies of all CPUs (steal counts: a hypervisor's neighbours hold the core)."""
  try:
    with open("/proc/stat", "rb") as f:
      v = f.readline().split()
  except OSError:
    return None
  # cpu user nice system idle iowait irq softirq steal ...
  return sum(int(x) for x in v[1:4]) + sum(int(x) for x in v[6:9])


def _sample(now):
  """Updates _avail: the cores the other processes left idle since the last sample."""
  global _avail, _next_sample, _last
  _next_sample = now + SAMPLE_S
  busy, mine = _busy_jiffies(), time.process_time()
  if busy is None:
    _avail = _max
    return
  if _last is not None:
    wall = now - _last[0]
    others = (busy - _last[1]) / _HZ - (mine - _last[2])
    _avail = max(1, min(_max, _ncpu, int(_ncpu - others / wall + 0.25)))
  _last = (now, busy, mine)


def work(mnk, out=None):
  """Sets the thread count for a BLAS call of `mnk` multiply-adds (if it changes);
  `out`, the product's size where known, caps the count at one per OUT_PER_THREAD."""
  if mnk <= FREE:
    return
  if _enabled is None:
    _init()
  if not _enabled:
    return
  want = mnk // WORK_PER_THREAD if mnk >= MULTI_MIN else 1
  if out is not None:
    want = min(want, out // OUT_PER_THREAD)
  if want > 1:
    now = time.monotonic()
    if now >= _next_sample:
      _sample(now)
    want = min(want, _avail)
  else:
    want = 1
  if want != _cur:
    _switch(want)


def matmul(a, b):
  """Sets the thread count for `a @ b` (NumPy arrays, rank >= 2, batch dims broadcast)."""
  if a.size * b.shape[-1] > FREE or b.ndim > 2:
    mnk = max(a.size * b.shape[-1], b.size * a.shape[-2])
    work(mnk, mnk // a.shape[-1] if a.shape[-1] else 0)


def gemm(m, n, k):
  """Sets the thread count for an (m x k) @ (k x n) product (or a batch: m includes it)."""
  if m * n * k > FREE:
    work(m * n * k, m * n)


def _switch(n):
  global _cur
  _set(n)
  _cur = n


def hand_back():
  """Gives the BLAS back the user's own default count. The count is process-wide: NumPy
  code outside tensorlet shares it, and after a GEMM the policy gave one thread it would
  run on one thread too (half speed for a large NumPy matmul on 2 idle cores)."""
  if _cur is not None and _cur != _max and not _fixed:
    _switch(_max)


def set_fixed(n):
  """n > 0: every op runs on n BLAS threads; 0: the size and load policy decides
  (starting from the count set before n was fixed)."""
  global _fixed, _enabled, _saved
  if _enabled is None:
    _init()
  if _set is None:
    _fixed = n
    return
  if n:
    if not _fixed:
      _saved = _cur if _cur is not None else _max
    _enabled = False
    _switch(n)
  elif _fixed:
    _enabled = _max > 1
    _switch(_saved or _max)
  _fixed = n


def set_policy(on):
  """Turns the policy on or off (off: the BLAS's own default count for every op)."""
  global _enabled
  if _enabled is None:
    _init()
  if _set is None or _fixed:
    return
  _enabled = bool(on) and _max > 1
  if not on:
    _switch(_max)


def policy_enabled():
  if _enabled is None:
    _init()
  return bool(_enabled)


def default_threads():
  """The user's default BLAS thread count (1 without threadpoolctl: not known here)."""
  if _enabled is None:
    _init()
  return _max


def current():
  """The count last set by this module (None: never set; the BLAS default holds)."""
  return _cur


def einsum(equation, arrays):
  """Sets the thread count for np.einsum over `arrays`: the product of all label sizes
  (a two-operand contraction's multiply-adds; an upper bound for more operands)."""
  sizes = {}
  ell = 1
  for sub, x in zip(equation.split("->")[0].split(","), arrays):
    sub = sub.strip()
    if "..." in sub:
      head, tail = sub.split("...")
      nb = x.ndim - len(head) - len(tail)
      e = 1
      for d in x.shape[len(head):len(head) + nb]:
        e *= d
      ell = max(ell, e)
      sub = head + tail
      dims = x.shape[:len(head)] + x.shape[len(head) + nb:]
    else:
      dims = x.shape
    for c, d in zip(sub, dims):
      sizes[c] = max(sizes.get(c, 1), d)
  total = ell
  for d in sizes.values():
    total *= d
  work(total)
