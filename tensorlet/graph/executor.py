"""Two executors with one semantics over an optimised node list:

* `Interpreter`: walks the nodes calling kernels; the reference.
* `compile_nodes`: generates one Python line per node (kernels bound as
  globals, inline expressions where the OpDef has one), frees large values
  after their last use, and registers the source with `linecache` so
  tracebacks show the generated line; errors are mapped back to the node
  and the user's source line that created it.
"""
import linecache
import itertools

import numpy as np

from tensorlet.errors import InvalidArgumentError, OpError

__all__ = ["Interpreter", "compile_nodes"]

_counter = itertools.count()
_BIG = 1 << 16  # elements; smaller values are not worth a `del`


def _node_error(node, e, values=None):
  """The error of a failed node: TF's message for the op (from its shape rule when
  the input values are known), the node's name, and the user's line that made it."""
  where = ""
  if node.source is not None:
    f, line, fn = node.source
    where = f"\n  created at {f}:{line} in {fn}"
  msg = getattr(e, "message", None) or str(e)
  cls = InvalidArgumentError
  if values is not None and not isinstance(e, OpError):
    from tensorlet.ops.registry import _wrap, kernel_error
    try:
      ke = kernel_error(node.opdef, [_wrap(v) for v in values], node.attrs, e)
      msg, cls = ke.message, type(ke)
    except Exception:  # noqa: BLE001 - keep NumPy's message
      pass
  err = cls(None, None, f"{msg}\n  (graph node '{node.name}', op {node.opdef.name}){where}")
  if isinstance(e, OpError):
    err = type(e)(None, None, err.message)
  return err


class Interpreter:
  """Runs nodes one by one with a dict of values: slow, simple, the reference."""

  def __init__(self, nodes, inputs, outputs, consts):
    self.nodes = nodes
    self.inputs = inputs
    self.outputs = outputs
    self.consts = consts

  def __call__(self, *args):
    env = dict(self.consts)
    env.update(zip(self.inputs, args))
    for n in self.nodes:
      vals = [env[i] for i in n.inputs]
      try:
        r = n.opdef.kernel(*vals, **n.attrs)
      except Exception as e:  # noqa: BLE001 - mapped to the node
        raise _node_error(n, e, vals) from None
      if len(n.outputs) == 1 and n.opdef.num_outputs == 1:
        env[n.outputs[0]] = r
      else:
        for o, v in zip(n.outputs, r):
          env[o] = v
    return tuple(env[o] for o in self.outputs)


class _Emitter:
  """Writes the Python lines of node lists into one function's source."""

  def __init__(self):
    # NOTE: a module name under tensorlet.ops so the package's RuntimeWarning filter
    # (overflow in exp, 0/0) applies to inlined kernels too.
    self.glb = {"np": np, "__name__": "tensorlet.ops._generated"}
    self.lines = []
    self.line_node = {}
    self.names = {}

  def emit(self, nodes, input_names, inputs, outputs, consts, sizes, types, prefix, indent):
    """Lines computing `outputs` from `inputs` (already bound to `input_names`)."""
    names = self.names
    glb = self.glb
    lines = self.lines
    for i, nm in zip(inputs, input_names):
      names[i] = nm
    for k, (i, v) in enumerate(consts.items()):
      if i not in names:
        names[i] = f"{prefix}c{k}"
        # NOTE: a NumPy scalar operand costs NumPy a conversion per call (x * c:
        # 440 ns with np.float32(c), 280 ns with a 0-d array); ufuncs still give
        # scalars for all-0-d operands, so results are unchanged.
        glb[names[i]] = np.asarray(v) if isinstance(v, np.generic) and v.dtype.kind in "biuf" \
            else v
    last_use, uses, producer = {}, {}, {}
    for idx, n in enumerate(nodes):
      for i in n.inputs:
        last_use[i] = idx
        uses[i] = uses.get(i, 0) + 1
      for o in n.outputs:
        producer[o] = n.opdef
    out_set = set(outputs)
    for o in outputs:
      last_use[o] = len(nodes)
    inline = _inlined_reads(nodes, uses, last_use, out_set)
    for idx, n in enumerate(nodes):
      if idx in inline:
        # NOTE: the read goes into the next line's expression: no name that holds
        # the array (so an update may still write in place) and no `del`.
        names[n.outputs[0]] = n.opdef.expr.format(names[n.inputs[0]])
        continue
      outs = []
      for j, o in enumerate(n.outputs):
        names[o] = f"{prefix}v{idx}_{j}" if len(n.outputs) > 1 else f"{prefix}v{idx}"
        outs.append(names[o])
      args = [names[i] for i in n.inputs]
      od = n.opdef
      target = None
      if od.inplace is not None and not n.attrs and len(n.outputs) == 1:
        augmented = od.inplace in _AUGMENTED and len(n.inputs) == 2
        for k, i in enumerate(n.inputs):
          if augmented and k == 1 and od.inplace not in _COMMUTATIVE:
            break
          if n.inputs.count(i) == 1 and _can_reuse(i, n.outputs[0], uses, producer, types,
                                                   out_set, sizes, 1 if augmented else _REUSE_MIN):
            target = k
            break
      zero = self._zero(types.get(n.outputs[0])) if n.outputs else "0"
      if target is not None:
        if "{" in od.inplace:  # a template, e.g. "np.maximum({0}, 0, out={out})"
          lines.append(f"{indent}{od.inplace.format(*args, out=args[target], zero=zero)}")
        elif augmented:
          # `v += w` skips the ufunc's keyword parsing (same casting as out=)
          other = args[1 - target]
          lines.append(f"{indent}{args[target]} {_AUGMENTED[od.inplace]} {other}")
        else:  # a ufunc name
          lines.append(f"{indent}np.{od.inplace}({', '.join(args)}, out={args[target]})")
        names[n.outputs[0]] = args[target]
        self.line_node[len(lines)] = n
        _free(lines, n, idx, names, last_use, sizes, producer, indent, keep=n.inputs[target])
        continue
      expr = od.expr(n.attrs) if callable(od.expr) else (od.expr if not n.attrs else None)
      if expr is not None:
        call = expr.format(*args, zero=zero)
      else:
        kname = f"{prefix}k{idx}"
        glb[kname] = od.kernel
        kw = ""
        if n.attrs:
          aname = f"{prefix}A{idx}"
          glb[aname] = n.attrs
          kw = f", **{aname}" if args else f"**{aname}"
        call = f"{kname}({', '.join(args)}{kw})"
      if not outs or od.num_outputs == 0:
        lines.append(f"{indent}{call}")
      elif len(outs) == 1 and od.num_outputs == 1:
        lines.append(f"{indent}{outs[0]} = {call}")
      else:
        lines.append(f"{indent}{', '.join(outs)}{',' if len(outs) == 1 else ''} = {call}")
      self.line_node[len(lines)] = n
      _free(lines, n, idx, names, last_use, sizes, producer, indent)
    return [names[o] for o in outputs]

  def _zero(self, typ):
    """The global name of a 0-d zero of an output's dtype ("0" when unknown)."""
    if typ is None or typ[1]._np is None or typ[1]._np.kind not in "iuf":
      return "0"
    name = f"Z_{typ[1].name}"
    self.glb.setdefault(name, np.zeros((), typ[1]._np))
    return name

  def finish(self, fn_name):
    """Compiles the lines; returns `run` (errors mapped to nodes) with .raw and .source."""
    glb, line_node, names = self.glb, self.line_node, self.names
    src = "\n".join(self.lines) + "\n"
    filename = f"<tensorlet-graph-{fn_name}-{next(_counter)}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), glb)  # noqa: S102 - our own generated code
    raw = glb[fn_name]

    def run(*args):
      try:
        return raw(*args)
      except Exception as e:  # noqa: BLE001 - map the failing line to its node
        tb = e.__traceback__
        node = frame = None
        while tb is not None:
          if tb.tb_frame.f_code.co_filename == filename:
            node, frame = line_node.get(tb.tb_lineno), tb.tb_frame
          tb = tb.tb_next
        if node is None:
          raise
        scope = dict(glb)
        scope.update(frame.f_locals)
        vals = [scope.get(names[i]) for i in node.inputs]
        raise _node_error(node, e, vals if all(v is not None for v in vals) else None) \
            from None
    run.source = src
    run.raw = raw
    return run


def _tuple(names):
  return f"({', '.join(names)}{',' if len(names) == 1 else ''})"


def compile_nodes(nodes, inputs, outputs, consts, sizes, fn_name="graph", types=None):
  """A Python function (args = input values) -> tuple of output values.

  `types` (value id -> (static shape tuple or None, dtype)) enables buffer
  reuse: an elementwise op whose first input is a fresh array of the output's
  shape, used by nobody else, writes into it (`np.add(v1, v2, out=v1)`).
  """
  em = _Emitter()
  params = [f"a{k}" for k in range(len(inputs))]
  em.lines.append(f"def {fn_name}({', '.join(params)}):")
  outs = em.emit(nodes, params, inputs, outputs, consts, sizes, types or {}, "", "  ")
  em.lines.append(f"  return {_tuple(outs)}")
  return em.finish(fn_name)


def compile_loop(cond, body, n_vars, n_ccaps, n_bcaps, fn_name="while_loop"):
  """One Python `while` loop running two planned graphs inline.

  `cond` and `body` are (nodes, inputs, outputs, consts, sizes, types) of graphs
  whose inputs are the loop variables then their captures; the loop function
  takes (vars..., cond captures..., body captures...) and returns the final vars.
  """
  em = _Emitter()
  xs = [f"x{k}" for k in range(n_vars)]
  cc = [f"cc{k}" for k in range(n_ccaps)]
  bc = [f"bc{k}" for k in range(n_bcaps)]
  em.lines.append(f"def {fn_name}({', '.join(xs + cc + bc)}):")
  em.lines.append("  while True:")
  c_nodes, c_in, c_out, c_consts, c_sizes, c_types = cond
  (test,) = em.emit(c_nodes, xs + cc, c_in, c_out, c_consts, c_sizes, c_types, "C", "    ")
  em.lines.append(f"    if not {test}:")
  em.lines.append("      break")
  b_nodes, b_in, b_out, b_consts, b_sizes, b_types = body
  new = em.emit(b_nodes, xs + bc, b_in, b_out, b_consts, b_sizes, b_types, "B", "    ")
  if xs:
    em.lines.append(f"    {', '.join(xs)}{',' if len(xs) == 1 else ''} = {_tuple(new)}")
  em.lines.append(f"  return {_tuple(xs)}")
  return em.finish(fn_name)


_AUGMENTED = {"add": "+=", "subtract": "-=", "multiply": "*=", "true_divide": "/="}
_COMMUTATIVE = frozenset({"add", "multiply"})


def _inlined_reads(nodes, uses, last_use, out_set):
  """Indices of variable reads used once, by the very next node (so no other
  op, an assignment say, runs between the read and its use)."""
  out = set()
  for idx, n in enumerate(nodes):
    if n.opdef.name == "ReadVariableOp" and isinstance(n.opdef.expr, str) and \
        len(n.outputs) == 1:
      o = n.outputs[0]
      if uses.get(o) == 1 and last_use.get(o) == idx + 1 and o not in out_set:
        out.add(idx)
  return out


def _free(lines, n, idx, names, last_use, sizes, producer, indent, keep=None):
  """`del` large intermediates at their last use (NumPy then reuses the memory),
  and variable reads (so a later update of the variable may write in place)."""
  dead = [names[i] for i in set(n.inputs) if i != keep and last_use.get(i) == idx and
          names[i].isidentifier() and
          i in producer and (sizes.get(i, _BIG) >= _BIG or
                             getattr(producer.get(i), "name", "") == "ReadVariableOp")]
  if dead:
    lines.append(f"{indent}del {', '.join(sorted(dead))}")


# Elements; below this `np.add(.., out=)` costs more than a fresh array (its keyword
# parsing); an augmented assignment (`v += w`) is cheaper than a fresh array at any size.
_REUSE_MIN = 1024


def _can_reuse(i, o, uses, producer, types, out_set, sizes, min_size):
  p = producer.get(i)
  if p is None or not p.fresh or uses.get(i) != 1 or i in out_set or \
      sizes.get(i, 0) < min_size:
    return False
  ti, to = types.get(i), types.get(o)
  return ti is not None and ti == to and ti[0] is not None and len(ti[0]) > 0
