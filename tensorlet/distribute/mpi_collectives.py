"""The `Collectives` interface on MPI (mpi4py): one object per worker process.

Every collective is an MPI collective on NumPy buffers; there is no networking of our
own. Many arrays are fused into one contiguous buffer per dtype before they go out, so
a training step's gradients cost one all-reduce per dtype, not one per variable (an
array of 16 MiB or more goes alone, straight from its own memory).

MPI's blocking collectives cannot time out: a worker that died or hangs leaves the
others waiting forever. So every collective here is the non-blocking variant
(`Iallreduce`, `Ibcast`, `Iallgatherv`, `Ibarrier`) polled against a deadline:

- a peer process on this host that exited -> `tf.errors.UnavailableError` within about
  0.25 s (peers on other hosts: the timeout, or the launcher ending the job),
- no completion within `timeout` seconds -> `tf.errors.DeadlineExceededError`.

After either, the communicator is in an unknown state (a half-finished collective), so
later collectives raise `UnavailableError` immediately, and the process exits with
status 1 instead of hanging in `MPI_Finalize` (as after an uncaught exception); the
launcher then ends the remaining workers.

The timeout is `timeout=` (seconds), else `$TENSORLET_COLLECTIVE_TIMEOUT`, else
`DEFAULT_TIMEOUT`; `None`/0 means wait forever (as TF does without
`CommunicationOptions(timeout_seconds=...)`), still with the dead-peer check.
"""
import atexit
import hashlib
import os
import socket
import sys
import time

import numpy as np

from tensorlet import errors
from tensorlet.distribute.collectives import Collectives, check_op, pack_by_dtype, unpack

DEFAULT_TIMEOUT = 600.0
FUSE_BELOW_BYTES = 1 << 24  # larger arrays are all-reduced alone (no copy); 1 MiB was slower
_LIVENESS_PERIOD = 0.25  # seconds between checks that peers on this host are alive
_HOST_BYTES = 32
_SPINS = 500  # polls before yielding the core (50: 2x slower all-reduce alone; 2000: no faster)
_YIELD_SECONDS = 0.01  # then yield between polls; past this, sleep 0.1 ms between them


def _mpi():
  try:
    from mpi4py import MPI
  except ImportError as e:  # the optional extra
    raise errors.UnimplementedError(
        None, None, "MPI collectives need mpi4py and an MPI library: "
        "pip install 'tensorlet[distributed]'") from e
  return MPI


def default_timeout():
  """Seconds from $TENSORLET_COLLECTIVE_TIMEOUT, else DEFAULT_TIMEOUT; None = no limit."""
  v = os.environ.get("TENSORLET_COLLECTIVE_TIMEOUT")
  if v is None or v == "":
    return DEFAULT_TIMEOUT
  try:
    t = float(v)
  except ValueError:
    raise ValueError(f"TENSORLET_COLLECTIVE_TIMEOUT must be a number of seconds, got {v!r}")
  return t if t > 0 else None


def _check_timeout(timeout):
  if timeout is None:
    return None
  if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
    raise TypeError(f"timeout must be a number of seconds or None, got {timeout!r}")
  if timeout < 0:
    raise ValueError(f"timeout must be >= 0 seconds, got {timeout}")
  return float(timeout) if timeout > 0 else None


def _pid_space():
  """32 bytes naming the process-id space this process lives in: the host name, the
  kernel's boot id and the pid namespace, so two containers (or two machines with the
  same host name) never take each other's process ids for their own."""
  parts = [socket.gethostname()]
  try:
    with open("/proc/sys/kernel/random/boot_id") as f:
      parts.append(f.read().strip())
    parts.append(str(os.stat("/proc/self/ns/pid").st_ino))
  except OSError:
    pass
  return hashlib.sha256("|".join(parts).encode()).digest()


def _process_alive(pid):
  """False once `pid` exited (also while it is an unreaped zombie)."""
  try:
    with open(f"/proc/{pid}/stat", "rb") as f:
      state = f.read().rsplit(b")", 1)[1].split()[0]
    return state not in (b"Z", b"X")
  except FileNotFoundError:
    return False
  except OSError:  # no /proc (not Linux): ask the kernel
    try:
      os.kill(pid, 0)
    except ProcessLookupError:
      return False
    except PermissionError:
      pass
    return True


_EXIT_STATE = {"guarded": False, "broken": False, "uncaught": False}


def _guard_exit():
  """At exit, skip MPI_Finalize when it could hang: after a failed collective (the
  communicator is mid-operation) or an uncaught exception (the peers are still inside a
  collective, and MPICH's finalize waits for them). The process then simply exits
  with status 1: peers on this host see it gone within a fraction of a second, and the
  launcher ends the job."""
  if _EXIT_STATE["guarded"]:
    return
  _EXIT_STATE["guarded"] = True
  previous = sys.excepthook

  def excepthook(*exc_info):
    _EXIT_STATE["uncaught"] = True
    previous(*exc_info)

  sys.excepthook = excepthook
  atexit.register(_exit_without_finalize)


def _exit_without_finalize():
  if _EXIT_STATE["broken"] or _EXIT_STATE["uncaught"]:
    for stream in (sys.stdout, sys.stderr):
      try:
        stream.flush()
      except Exception:
        pass
    os._exit(1)


class MPICollectives(Collectives):
  """Collectives over an MPI communicator (default: every process `mpiexec` started).

  `comm` is duplicated, so these collectives never match messages of other MPI users
  in the same process. `timeout` is in seconds (see the module docstring)."""

  def __init__(self, comm=None, timeout="default"):
    MPI = _mpi()
    self._MPI = MPI
    self.timeout = default_timeout() if timeout == "default" else _check_timeout(timeout)
    self._comm = (MPI.COMM_WORLD if comm is None else comm).Dup()
    self.rank = self._comm.Get_rank()
    self.size = self._comm.Get_size()
    self._failed = None
    self._closed = False
    _guard_exit()
    self._local_peers = self._find_local_peers()

  # -- failure handling --------------------------------------------------------------

  def _find_local_peers(self):
    """{rank: pid} of the other workers on this host, for the dead-peer check."""
    host = _pid_space()
    mine = np.frombuffer(host + np.int64(os.getpid()).tobytes(), np.uint8)
    table = np.empty((self.size, mine.size), np.uint8)
    self._wait([self._comm.Iallgather(mine, table)], "startup (allgather of worker pids)")
    peers = {}
    for r in range(self.size):
      if r != self.rank and bytes(table[r, :_HOST_BYTES]) == bytes(mine[:_HOST_BYTES]):
        peers[r] = int(table[r, _HOST_BYTES:].view(np.int64)[0])
    return peers

  def _dead_peers(self):
    return [(r, pid) for r, pid in sorted(self._local_peers.items()) if not _process_alive(pid)]

  def _fail(self, error):
    self._failed = error
    _EXIT_STATE["broken"] = True
    raise error

  def _check_usable(self, what):
    if self._closed:
      raise errors.FailedPreconditionError(
          None, None, f"Collective {what}: the MPI collectives of worker {self.rank} are closed")
    if self._failed is not None:
      raise errors.UnavailableError(
          None, None, f"Collective {what} on worker {self.rank}: the workers can no longer "
          f"communicate after an earlier failure ({self._failed})")

  def _wait(self, requests, what):
    """Polls `requests` until all complete, a local peer dies, or the deadline passes."""
    MPI = self._MPI
    if MPI.Request.Testall(requests):
      return
    start = time.monotonic()
    deadline = None if self.timeout is None else start + self.timeout
    next_check = start + _LIVENESS_PERIOD
    spins = 0
    while not MPI.Request.Testall(requests):
      spins += 1
      if spins < _SPINS:
        continue
      # The peer is still computing: offer the core to whoever needs it (often that
      # peer, when the workers share a busy machine), and after a while stop polling hot.
      now = time.monotonic()
      time.sleep(0 if now - start < _YIELD_SECONDS else 1e-4)
      if now >= next_check:
        next_check = now + _LIVENESS_PERIOD
        dead = self._dead_peers()
        if dead:
          who = ", ".join(f"worker {r} (pid {pid})" for r, pid in dead)
          self._fail(errors.UnavailableError(
              None, None, f"Collective {what} failed on worker {self.rank} of {self.size}: "
              f"{who} exited; the remaining workers cannot continue. Restart the job (with "
              f"BackupAndRestore or a CheckpointManager it resumes from the last checkpoint)."))
      if deadline is not None and now >= deadline:
        self._fail(errors.DeadlineExceededError(
            None, None, f"Collective {what} timed out on worker {self.rank} of {self.size} "
            f"after {self.timeout:g} s: at least one worker did not take part (it died, hangs "
            f"or runs different code). The timeout is set by "
            f"CommunicationOptions(timeout_seconds=...) or $TENSORLET_COLLECTIVE_TIMEOUT."))

  # -- collectives -------------------------------------------------------------------

  def all_reduce(self, arrays, op="sum"):
    op = check_op(op)
    arrays = [np.asarray(a) for a in arrays]
    what = f"all_reduce({op}) of {len(arrays)} arrays"
    self._check_usable(what)
    for a in arrays:
      if a.dtype.kind in "OUSV":
        raise errors.InvalidArgumentError(
            None, None, f"{what}: cannot reduce arrays of dtype {a.dtype}")
      if a.dtype.kind == "b" and op in ("sum", "mean"):
        raise errors.InvalidArgumentError(
            None, None, f"{what}: {op} of bool arrays is not defined (use max or min)")
      if a.dtype.kind == "c" and op in ("max", "min"):
        raise errors.InvalidArgumentError(
            None, None, f"{what}: {op} of complex arrays is not defined")
    if self.size == 1 or not arrays:
      return [a.copy() for a in arrays]
    mpi_op = {"sum": self._MPI.SUM, "mean": self._MPI.SUM,
              "max": self._MPI.MAX, "min": self._MPI.MIN}[op]
    # Small arrays are fused (one message per dtype); a large one goes alone, straight
    # from its own memory into the result, which saves copying it into the fused buffer.
    small = [i for i, a in enumerate(arrays) if a.nbytes < FUSE_BELOW_BYTES]
    large = [i for i, a in enumerate(arrays) if a.nbytes >= FUSE_BELOW_BYTES]
    buffers, layout = pack_by_dtype([arrays[i] for i in small])
    requests, results = [], [None] * len(arrays)
    for key in sorted(buffers):  # the same order on every worker
      requests.append(self._comm.Iallreduce(self._MPI.IN_PLACE, _mpi_view(buffers[key]),
                                            op=mpi_op))
    for i in large:
      src = np.ascontiguousarray(arrays[i])
      results[i] = np.empty_like(src)
      requests.append(self._comm.Iallreduce(_mpi_view(src), _mpi_view(results[i]), op=mpi_op))
    self._wait(requests, what)
    for i, a in zip(small, unpack(buffers, layout)):
      results[i] = a
    if op == "mean":
      results = [_divide(a, self.size) for a in results]
    return results

  def broadcast(self, arrays, root=0):
    self._check_root(root, "broadcast")
    what = f"broadcast of {len(arrays)} arrays from worker {root}"
    self._check_usable(what)
    arrays = [np.asarray(a) for a in arrays]
    if self.size == 1:
      return [a.copy() for a in arrays]
    # The root's dtypes and shapes go first, so the others need not know them.
    problem = None
    if self.rank == root:
      try:
        header = _encode_layout(arrays)
        n = np.array([header.size], np.int64)
      except errors.InvalidArgumentError as e:
        problem, n = e, np.array([-1], np.int64)  # tell the others, then fail everywhere
    else:
      n = np.zeros(1, np.int64)
    self._wait([self._comm.Ibcast(n, root=root)], what)
    if n[0] < 0:
      raise problem or errors.InvalidArgumentError(
          None, None, f"{what}: the root's arrays have a dtype that cannot be sent")
    if self.rank != root:
      header = np.empty(int(n[0]), np.int64)
    self._wait([self._comm.Ibcast(header, root=root)], what)
    if self.rank == root:
      buffers, layout = pack_by_dtype(arrays)
    else:
      layout_spec = _decode_layout(header)
      buffers, layout = pack_by_dtype([np.empty(s, d) for d, s in layout_spec])
    requests = [self._comm.Ibcast(_raw(buffers[key]), root=root) for key in sorted(buffers)]
    self._wait(requests, what)
    return unpack(buffers, layout)

  def all_gather(self, array, axis=0):
    array = np.asarray(array)
    what = f"all_gather of a {array.dtype} array of shape {array.shape}"
    self._check_usable(what)
    if array.ndim == 0:
      raise errors.InvalidArgumentError(None, None, f"{what}: needs at least one dimension")
    if array.dtype.kind in "OV":
      raise errors.InvalidArgumentError(None, None, f"{what}: cannot send dtype {array.dtype}")
    if not -array.ndim <= axis < array.ndim:
      raise errors.InvalidArgumentError(
          None, None, f"{what}: axis {axis} is out of range for rank {array.ndim}")
    axis %= array.ndim
    if self.size == 1:
      return array.copy()
    # Every worker learns every worker's dtype and shape before any data moves.
    meta = np.full(2 + 32, -1, np.int64)
    meta[0] = array.ndim
    meta[1] = _dtype_code(array.dtype)
    meta[2:2 + array.ndim] = array.shape
    table = np.empty((self.size, meta.size), np.int64)
    self._wait([self._comm.Iallgather(meta, table)], what)
    rest = [s for i, s in enumerate(array.shape) if i != axis]
    for r in range(self.size):
      shape = [int(s) for s in table[r, 2:2 + table[r, 0]]]
      if table[r, 0] != array.ndim or table[r, 1] != meta[1] or \
          [s for i, s in enumerate(shape) if i != axis] != rest:
        raise errors.InvalidArgumentError(
            None, None, f"{what}: worker {r} has a {_DTYPES[table[r, 1]]} array of shape "
            f"{tuple(shape)}; all_gather needs the same dtype and the same sizes except "
            f"along axis {axis}")
    front = np.ascontiguousarray(np.moveaxis(array, axis, 0))
    row = int(np.prod(rest, dtype=np.int64)) * array.itemsize
    counts = [int(table[r, 2 + axis]) * row for r in range(self.size)]
    displs = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64).tolist()
    out = np.empty((sum(int(table[r, 2 + axis]) for r in range(self.size)),) +
                   front.shape[1:], array.dtype)
    self._wait([self._comm.Iallgatherv(
        _raw(front), [_raw(out), counts, displs, self._MPI.BYTE])], what)
    return np.moveaxis(out, 0, axis)

  def barrier(self):
    self._check_usable("barrier")
    if self.size > 1:
      self._wait([self._comm.Ibarrier()], "barrier")

  def close(self):
    if self._closed:
      return
    self._closed = True
    if self._failed is None:
      try:
        self._comm.Free()
      except Exception:
        pass

  def _check_root(self, root, what):
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or \
        not 0 <= root < self.size:
      raise errors.InvalidArgumentError(
          None, None, f"{what}: root must be a worker rank in [0, {self.size}), got {root!r}")


def _mpi_view(a):
  """`a` as MPI reduces it: bools as bytes (max = any, min = all)."""
  return a.view(np.uint8) if a.dtype.kind == "b" else a


def _divide(a, n):
  if a.dtype.kind in "fc":
    a /= n
    return a
  if a.dtype.kind == "u":
    return a // n
  return np.trunc(a / n).astype(a.dtype)  # TF's integer MEAN truncates


def _raw(a):
  """A 1-D uint8 view of a contiguous array (dtype-agnostic transport of bytes)."""
  return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


_DTYPES = [np.dtype(t) for t in (
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "float32", "float64", "complex64", "complex128")]


def _dtype_code(dtype):
  try:
    return _DTYPES.index(np.dtype(dtype))
  except ValueError:
    raise errors.InvalidArgumentError(
        None, None, f"Collectives cannot send arrays of dtype {dtype}") from None


def _encode_layout(arrays):
  out = [len(arrays)]
  for a in arrays:
    out += [_dtype_code(a.dtype), a.ndim, *a.shape]
  return np.array(out, np.int64)


def _decode_layout(header):
  h = header.tolist()
  spec, i = [], 1
  for _ in range(h[0]):
    dtype, ndim = _DTYPES[h[i]], h[i + 1]
    spec.append((dtype, tuple(h[i + 2:i + 2 + ndim])))
    i += 2 + ndim
  return spec
