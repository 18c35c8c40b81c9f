"""Two executors with one semantics over a lowered graph (passes.lower):

* `Interpreter`: walks the graph's operations calling kernels; the reference.
* `compile_graph`: generates one Python line per operation (kernels bound as
  globals, inline expressions where the OpDef has one, Const values bound as
  globals), frees large values after their last use, and registers the source
  with `linecache` so tracebacks show the generated line; errors are mapped
  back to the operation and the user's source line that created it.

`function_for(graph)` and `loop_for(cond, body)` compile the graphs that
control-flow and call ops run, once per graph (a cache here, not in attrs).
"""
import linecache
import itertools
import weakref

import numpy as np

from tensorlet.dtypes import variant as _variant
from tensorlet.errors import InvalidArgumentError, OpError
from tensorlet.ops.control_flow_ops import (If, PartitionedCall, StatefulPartitionedCall,
                                            StatelessIf, if_predicate as _if_pred)
from tensorlet.ops.registry import GRAPH_EXEC

__all__ = ["Interpreter", "compile_graph", "function_for", "loop_for"]

_counter = itertools.count()
_CALL_OPS = frozenset({PartitionedCall, StatefulPartitionedCall})
_IF_OPS = frozenset({If, StatelessIf})
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
  """Runs a lowered graph op by op with a dict of values: slow, simple, the reference."""

  def __init__(self, graph):
    self.graph = graph

  def __call__(self, *args):
    g = self.graph
    env = {id(t): v for t, v in zip(g.inputs, args)}
    for op in g.get_operations():
      od = op.opdef
      if od.is_placeholder:
        continue
      vals = [env[id(t)] for t in op.inputs]
      try:
        r = od.kernel(*vals, **op.attrs)
      except Exception as e:  # noqa: BLE001 - mapped to the node
        raise _node_error(op, e, vals) from None
      if len(op.outputs) == 1 and od.num_outputs == 1:
        env[id(op.outputs[0])] = r
      else:
        for o, v in zip(op.outputs, r):
          env[id(o)] = v
    return tuple(env[id(o)] for o in g.outputs)


def _plan(g):
  """The emitter's view of a lowered graph: (ops, inputs, outputs, consts, sizes, types)
  with values named by id; Const outputs are bound values, not lines."""
  consts, sizes, types, ops = {}, {}, {}, []
  for op in g.get_operations():
    od = op.opdef
    for t in op.outputs:
      s = t.shape
      types[id(t)] = (tuple(s.as_list()) if s.is_fully_defined() else None, t.dtype)
      n = s.num_elements()
      if t.dtype is _variant:
        n = _BIG  # a list or a loop's history: often large, so freed at its last use
      if n is not None:
        sizes[id(t)] = n
    if od.is_const:
      consts[id(op.outputs[0])] = op.attrs["value"]
    elif not od.is_placeholder:
      ops.append(op)
  return (ops, [id(t) for t in g.inputs], [id(t) for t in g.outputs], consts, sizes, types)


class _Emitter:
  """Writes the Python lines of node lists into one function's source."""

  def __init__(self):
    # NOTE: a module name under tensorlet.ops so the package's RuntimeWarning filter
    # (overflow in exp, 0/0) applies to inlined kernels too.
    self.glb = {"np": np, "__name__": "tensorlet.ops._generated"}
    self.lines = []
    self.line_node = {}
    self.names = {}

  def emit(self, plan, input_names, prefix, indent):
    """Lines computing a planned graph's outputs from its inputs (already bound to
    `input_names`)."""
    ops, inputs, outputs, consts, sizes, types = plan
    names = self.names
    glb = self.glb
    lines = self.lines
    for i, nm in zip(inputs, input_names):
      names[i] = nm
    # Value ids of each op's inputs and outputs (the generated code's symbol table).
    n_in = [[id(t) for t in op.inputs] for op in ops]
    scalar_only = _scalar_only_consts(consts, n_in, types, outputs)
    for k, (i, v) in enumerate(consts.items()):
      if i not in names:
        names[i] = f"{prefix}c{k}"
        # NOTE: a NumPy scalar operand costs NumPy a conversion per call when the other
        # operand is an array (x * c: 440 ns with np.float32(c), 280 ns with a 0-d
        # array), while scalar with scalar is ~25x cheaper than with a 0-d array (a loop
        # counter `i + 1`, `i < n`); ufuncs give scalars for all-0-d operands either way.
        if isinstance(v, (np.generic, np.ndarray)) and v.ndim == 0 and v.dtype.kind in "biuf":
          v = v[()] if i in scalar_only else np.asarray(v)
        glb[names[i]] = v
    n_out = [[id(t) for t in op.outputs] for op in ops]
    last_use, uses, producer = {}, {}, {}
    for idx, op in enumerate(ops):
      for i in n_in[idx]:
        last_use[i] = idx
        uses[i] = uses.get(i, 0) + 1
      for o in n_out[idx]:
        producer[o] = op.opdef
    out_set = set(outputs)
    for o in outputs:
      last_use[o] = len(ops)
    inline = _inlined_reads(ops, n_in, n_out, uses, last_use, out_set)
    for idx, n in enumerate(ops):
      ins, outs_ids = n_in[idx], n_out[idx]
      if idx in inline:
        # NOTE: the read goes into the next line's expression: no name that holds
        # the array (so an update may still write in place) and no `del`.
        names[outs_ids[0]] = n.opdef.expr.format(names[ins[0]])
        continue
      outs = []
      for j, o in enumerate(outs_ids):
        names[o] = f"{prefix}v{idx}_{j}" if len(outs_ids) > 1 else f"{prefix}v{idx}"
        outs.append(names[o])
      args = [names[i] for i in ins]
      od = n.opdef
      if od in _CALL_OPS:
        plan = _inline_plan(n.attrs["f"])
        if plan is not None:
          self._inline(plan, n, idx, args, outs_ids, prefix, indent)
          _free(lines, ins, idx, names, last_use, sizes, producer, indent)
          continue
      if od in _IF_OPS:
        a = n.attrs
        then_p, else_p = _inline_plan(a["then_graph"]), _inline_plan(a["else_graph"])
        if then_p is not None and else_p is not None:
          self._inline_if(then_p, else_p, n, idx, args, outs_ids, prefix, indent)
          _free(lines, ins, idx, names, last_use, sizes, producer, indent)
          continue
      target = None
      if od.inplace is not None and not n.attrs and len(outs_ids) == 1:
        augmented = od.inplace in _AUGMENTED and len(ins) == 2
        for k, i in enumerate(ins):
          if augmented and k == 1 and od.inplace not in _COMMUTATIVE:
            break
          if ins.count(i) == 1 and _can_reuse(i, outs_ids[0], uses, producer, types,
                                              out_set, sizes, 1 if augmented else _REUSE_MIN):
            target = k
            break
      zero = self._zero(types.get(outs_ids[0])) if outs_ids else "0"
      if target is not None:
        if "{" in od.inplace:  # a template, e.g. "np.maximum({0}, 0, out={out})"
          lines.append(f"{indent}{od.inplace.format(*args, out=args[target], zero=zero)}")
        elif augmented:
          # `v += w` skips the ufunc's keyword parsing (same casting as out=)
          other = args[1 - target]
          lines.append(f"{indent}{args[target]} {_AUGMENTED[od.inplace]} {other}")
        else:  # a ufunc name
          lines.append(f"{indent}np.{od.inplace}({', '.join(args)}, out={args[target]})")
        names[outs_ids[0]] = args[target]
        self.line_node[len(lines)] = n
        _free(lines, ins, idx, names, last_use, sizes, producer, indent, keep=ins[target])
        continue
      expr = od.expr(n.attrs, n) if callable(od.expr) else (od.expr if not n.attrs else None)
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
      _free(lines, ins, idx, names, last_use, sizes, producer, indent)
    return [names[o] for o in outputs]

  def _inline(self, plan, node, idx, args, outs_ids, prefix, indent):
    """The lines of a called graph in place of its call op (no call, no argument
    tuples). Each output gets a name of its own that only the call's consumers use, so
    the caller may `del` it at its last use as after a call."""
    sub = f"{prefix}I{idx}_"
    start = len(self.lines)
    for k, a in enumerate(args):
      if not a.isidentifier():  # an inlined read: evaluated once, at the call, as before
        self.lines.append(f"{indent}{sub}a{k} = {a}")
        args[k] = f"{sub}a{k}"
    outs = self.emit(plan, args, sub, indent)
    for k in range(start, len(self.lines)):
      self.line_node.setdefault(k + 1, node)
    seen = set()
    for j, (o, nm) in enumerate(zip(outs_ids, outs)):
      if nm.startswith(sub) and nm.isidentifier() and nm not in self.glb and nm not in seen:
        self.names[o] = nm
      else:  # the callee's input, a constant, or an output returned twice
        self.names[o] = f"{sub}o{j}"
        self.lines.append(f"{indent}{sub}o{j} = {nm}")
      seen.add(nm)

  def _inline_if(self, then_p, else_p, node, idx, args, outs_ids, prefix, indent):
    """An If op as a Python `if` over its two branches' lines (no kernel, no call)."""
    a = node.attrs
    sub = f"{prefix}I{idx}_"
    pred, caps = args[0], args[1:]
    for k, v in enumerate(caps):
      if not v.isidentifier():
        self.lines.append(f"{indent}{sub}a{k} = {v}")
        caps[k] = f"{sub}a{k}"
    start = len(self.lines)
    self.glb["_if_pred"] = _if_pred
    self.lines.append(f"{indent}if _if_pred({pred}):")
    for branch, (plan, pos) in enumerate(((then_p, a["then_idx"]), (else_p, a["else_idx"]))):
      if branch:
        self.lines.append(f"{indent}else:")
      inner = indent + "  "
      first = len(self.lines)
      outs = self.emit(plan, [caps[i] for i in pos], f"{sub}{'te'[branch]}", inner)
      for j, nm in enumerate(outs):
        self.lines.append(f"{inner}{sub}o{j} = {nm}")
      if len(self.lines) == first:
        self.lines.append(f"{inner}pass")
    for k in range(start, len(self.lines)):
      self.line_node.setdefault(k + 1, node)
    for j, o in enumerate(outs_ids):
      self.names[o] = f"{sub}o{j}"

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
        vals = [scope.get(names[id(t)]) for t in node.inputs]
        raise _node_error(node, e, vals if all(v is not None for v in vals) else None) \
            from None
    run.source = src
    run.raw = raw
    return run


def _tuple(names):
  return f"({', '.join(names)}{',' if len(names) == 1 else ''})"


def compile_graph(g, fn_name="graph"):
  """A Python function (args = values of `g.inputs`) -> tuple of output values, for
  a lowered graph. Static shapes enable buffer reuse: an elementwise op whose
  first input is a fresh array of the output's shape, used by nobody else,
  writes into it (`np.add(v1, v2, out=v1)`)."""
  em = _Emitter()
  params = [f"a{k}" for k in range(len(g.inputs))]
  em.lines.append(f"def {fn_name}({', '.join(params)}):")
  outs = em.emit(_plan(g), params, "", "  ")
  em.lines.append(f"  return {_tuple(outs)}")
  return em.finish(fn_name)


def compile_loop(cond, body, n_vars, fn_name="while_loop", history=False, limit=False):
  """One Python `while` loop running two lowered graphs inline.

  `cond` and `body` take the loop variables then their own captures; the body returns
  the new variables, then (a forward graph kept for a gradient) intermediates. The loop
  function takes (vars..., cond captures..., body captures...), then with `history` a
  callable given each iteration's (vars..., body outputs...), then with `limit` the
  maximum number of iterations; it returns the final vars.
  """
  n_c = len(cond.inputs) - n_vars
  n_b = len(body.inputs) - n_vars
  em = _Emitter()
  xs = [f"x{k}" for k in range(n_vars)]
  cc = [f"cc{k}" for k in range(n_c)]
  bc = [f"bc{k}" for k in range(n_b)]
  extra = (["H_"] if history else []) + (["L_"] if limit else [])
  em.lines.append(f"def {fn_name}({', '.join(xs + cc + bc + extra)}):")
  cplan, bplan = _plan(cond), _plan(body)
  hoisted, main = _hoist(bplan, n_vars, cplan[0])
  # NOTE: 0-d captures used only with 0-d values (a tf.range loop's limit and delta) as
  # NumPy scalars: scalar with scalar is ~25x cheaper than with a 0-d array.
  em.glb["_as_scalar"] = _as_scalar
  for names, plan in ((cc, cplan), (bc, bplan)):
    for k in _scalar_inputs(plan, n_vars):
      em.lines.append(f"  {names[k]} = _as_scalar({names[k]})")
  if limit:
    em.lines.append("  it_ = 0")
  if hoisted is not None:
    em.lines.append("  first_ = True")
  em.lines.append("  while True:")
  if limit:
    em.lines.append("    if it_ >= L_:")
    em.lines.append("      break")
  (test,) = em.emit(cplan, xs + cc, "C", "    ")
  em.lines.append(f"    if not {test}:")
  em.lines.append("      break")
  if limit:
    em.lines.append("    it_ += 1")
  if hoisted is not None:
    # NOTE: computed in the first iteration, after its test: a loop that never runs
    # computes (and raises) nothing, as before.
    em.lines.append("    if first_:")
    inv = em.emit(hoisted, bc, "H", "      ")
    em.lines.append("      first_ = False")
    new = em.emit(main, xs + bc + inv, "B", "    ")
  else:
    new = em.emit(main, xs + bc, "B", "    ")
  if history:
    em.lines.append(f"    H_({_tuple(xs + new)})")
  if xs:
    em.lines.append(f"    {', '.join(xs)}{',' if len(xs) == 1 else ''} = {_tuple(new[:n_vars])}")
  em.lines.append(f"  return {_tuple(xs)}")
  return em.finish(fn_name)


def _as_scalar(v):
  return np.asarray(v)[()]


def _scalar_inputs(plan, first):
  """Positions (from `first`) of a plan's 0-d numeric inputs whose every consumer has
  only 0-d inputs and that are not outputs."""
  ops, inputs, outputs, consts, sizes, types = plan
  cand = {}
  for k, i in enumerate(inputs[first:]):
    shape, dtype = types.get(i, (None, None))
    if shape == () and dtype._np is not None and dtype._np.kind in "biuf" and \
        i not in outputs:
      cand[i] = k
  for op in ops:
    ins = [id(t) for t in op.inputs]
    if cand.keys() & set(ins) and not all(types.get(j, (None,))[0] == () for j in ins):
      for j in ins:
        cand.pop(j, None)
  return sorted(cand.values())


def _hoist(plan, n_vars, cond_ops):
  """Loop-invariant code motion: (plan of the body's ops that depend only on its
  captures and constants, plan of the rest taking their values as extra inputs), or
  (None, plan) when nothing moves. Stateful ops stay, and so do variable reads when
  the loop writes anything."""
  ops, inputs, outputs, consts, sizes, types = plan
  writes = any(op.opdef.stateful for op in ops) or any(op.opdef.stateful for op in cond_ops)
  inv = set(inputs[n_vars:]) | set(consts)
  moved, rest = [], []
  for op in ops:
    od = op.opdef
    if not od.stateful and not (od.reads_state and writes) and op.outputs and \
        not op.control_inputs and all(id(t) in inv for t in op.inputs):
      moved.append(op)
      inv.update(id(o) for o in op.outputs)
    else:
      rest.append(op)
  if not moved:
    return None, plan
  made = {id(o) for op in moved for o in op.outputs}
  needed = {id(t) for op in rest for t in op.inputs} | set(outputs)
  carried = [i for i in (id(o) for op in moved for o in op.outputs) if i in needed]

  def used(group, extra=()):
    ids = {id(t) for op in group for t in op.inputs} | set(extra)
    return {i: v for i, v in consts.items() if i in ids}
  return ((moved, inputs[n_vars:], carried, used(moved), sizes, types),
          (rest, inputs + carried, outputs, used(rest, outputs), sizes, types)) \
      if made else (None, plan)


# Compiled graphs of control-flow and call ops, by graph: attrs hold only graphs.
_FUNCTIONS = weakref.WeakKeyDictionary()
_LOOPS = weakref.WeakKeyDictionary()


def _ident(name):
  s = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
  return s if s and not s[0].isdigit() else "f_" + s


def function_for(fg):
  """The compiled function of a FuncGraph over (inputs..., captures...) arrays."""
  fn = _FUNCTIONS.get(fg)
  if fn is None:
    from tensorlet.graph.passes import lower
    fn = _FUNCTIONS[fg] = compile_graph(lower(fg, bind_captures=False), _ident(fg.name))
  return fn


def loop_for(cond_g, body_g, n_vars, history=False, limit=False):
  """One compiled `while` loop of a loop's test and body graphs (compile_loop)."""
  per = _LOOPS.get(cond_g)
  if per is None:
    per = _LOOPS[cond_g] = {}
  key = (history, limit)
  hit = per.get(key)
  if hit is None or hit[0] is not body_g:
    from tensorlet.graph.passes import lower
    fn = compile_loop(lower(cond_g, bind_captures=False), lower(body_g, bind_captures=False),
                      n_vars, history=history, limit=limit)
    hit = per[key] = (body_g, fn)
  return hit[1]


# Called graphs of at most this many operations are inlined into their caller's code.
_INLINE_MAX_OPS = 64
_INLINED = weakref.WeakKeyDictionary()


def _inline_plan(fg):
  """The plan of a call op's graph to inline (lowered once), or None when too large."""
  hit = _INLINED.get(fg)
  if hit is None:
    from tensorlet.graph.passes import lower
    hit = (None, None)
    if len(fg.get_operations()) <= 4 * _INLINE_MAX_OPS:
      low = lower(fg, bind_captures=False)
      plan = _plan(low)
      if len(plan[0]) <= _INLINE_MAX_OPS:
        # NOTE: the lowered graph is kept with its plan: the plan names values by id,
        # unique only while they live.
        hit = (low, plan)
    _INLINED[fg] = hit
  return hit[1]


_AUGMENTED = {"add": "+=", "subtract": "-=", "multiply": "*=", "true_divide": "/="}
_COMMUTATIVE = frozenset({"add", "multiply"})


def _scalar_only_consts(consts, n_in, types, outputs):
  """Ids of the 0-d constants whose every consumer has only 0-d inputs (and that are
  not outputs): they are bound as NumPy scalars."""
  out = {i for i, v in consts.items() if getattr(v, "ndim", None) == 0} - set(outputs)
  if not out:
    return out
  for ins in n_in:
    if out.intersection(ins) and not all(types.get(j, (None,))[0] == () for j in ins):
      out.difference_update(ins)
  return out


def _inlined_reads(ops, n_in, n_out, uses, last_use, out_set):
  """Indices of variable reads used once, by the very next op (so no other
  op, an assignment say, runs between the read and its use)."""
  out = set()
  for idx, n in enumerate(ops):
    od = n.opdef
    if od.reads_state and isinstance(od.expr, str) and len(n_out[idx]) == 1:
      o = n_out[idx][0]
      if uses.get(o) == 1 and last_use.get(o) == idx + 1 and o not in out_set:
        out.add(idx)
  return out


def _free(lines, ins, idx, names, last_use, sizes, producer, indent, keep=None):
  """`del` large intermediates at their last use (NumPy then reuses the memory),
  and variable reads (so a later update of the variable may write in place)."""
  dead = [names[i] for i in set(ins) if i != keep and last_use.get(i) == idx and
          names[i].isidentifier() and
          i in producer and (sizes.get(i, _BIG) >= _BIG or producer[i].reads_state)]
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


GRAPH_EXEC.update(function=function_for, loop=loop_for)
