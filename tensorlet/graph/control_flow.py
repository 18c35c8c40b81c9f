"""tf.cond, tf.while_loop, tf.case, tf.switch_case: building the If and While
nodes of ops/control_flow_ops.py.

Eagerly these are plain Python control flow. While a graph is built, each
branch or body is traced into its own FuncGraph (graph/building.py) and held
by the node as an attribute; the node's inputs are the predicate or loop
variables plus every outer value a branch captured. Their gradients are in
autodiff/control_flow_grad.py.
"""
import numpy as np

from tensorlet import _nest as nest
from tensorlet import dtypes as _dt
from tensorlet.context import ctx
from tensorlet.errors import InvalidArgumentError
from tensorlet.graph.building import build_graph, note_captured_variables
from tensorlet.ops import control_flow_ops as cf
from tensorlet.ops._common import as_sequence
from tensorlet.ops.array_ops import Identity
from tensorlet.ops.registry import execute
from tensorlet.tensor_shape import TensorShape
from tensorlet.tensor import EagerTensor, Tensor, convert_to_tensor
from tensorlet.tensor_spec import TensorSpec

__all__ = ["cond", "while_loop", "case", "switch_case"]


def _undefined(x):
  """AutoGraph's marker kind of `x` ("symbol", "return") or None: a value the
  converted code left undefined in one branch."""
  return getattr(type(x), "_undefined_kind", None)



def _to_tensor_leaf(x):
  if x is None or isinstance(x, Tensor):
    return x
  return convert_to_tensor(x)


# Composite values (TensorArray) travel through branches and loops as their
# component tensors: `_expand` swaps each for its components (a nested list),
# `_collapse` rebuilds them from a template structure.
class _Components(list):
  pass


def _expand(struct):
  return nest.map_structure(
      lambda x: _Components(x._to_components()) if hasattr(x, "_to_components") else x, struct)


def _collapse(values, template):
  flat_v = nest.flatten(values)
  out, pos = [], 0
  for leaf in nest.flatten(template):
    if hasattr(leaf, "_to_components"):
      n = len(leaf._to_components())
      out.append(leaf._from_components(flat_v[pos:pos + n]))
      pos += n
    else:
      out.append(flat_v[pos])
      pos += 1
  return nest.pack_sequence_as(template, out)


def _merged_captures(graphs):
  """Union of the graphs' captured outer values, and each graph's index list into it."""
  values, index = [], {}
  per_graph = []
  for g in graphs:
    idx = []
    for value, _ in g.captures.values():
      k = index.get(id(value))
      if k is None:
        k = index[id(value)] = len(values)
        values.append(value)
      idx.append(k)
    per_graph.append(tuple(idx))
  return values, per_graph


def cond(pred, true_fn=None, false_fn=None, name=None):
  """Calls `true_fn()` if `pred` is true, else `false_fn()`.

  In a graph both branches are traced and the choice is made at run time;
  they must return the same structure and dtypes.
  """
  if not callable(true_fn):
    raise TypeError("true_fn must be callable.")
  if not callable(false_fn):
    raise TypeError("false_fn must be callable.")
  if isinstance(pred, (bool, np.bool_)):
    return true_fn() if pred else false_fn()
  pred = convert_to_tensor(pred)
  if pred.dtype is not _dt.bool:
    raise TypeError(f"pred must be a bool tensor, got {pred.dtype.name} (tf.cond)")
  if ctx.graph is None:
    if pred._value.size != 1:
      raise InvalidArgumentError(None, None, f"The predicate of tf.cond must be a scalar, got "
                                 f"shape {pred.shape}")
    return true_fn() if bool(pred._value) else false_fn()
  if pred.shape.rank not in (None, 0):
    raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.rank} for the predicate of "
                     f"tf.cond")
  return _cond_graph(pred, true_fn, false_fn, name)


def _cond_graph(pred, true_fn, false_fn, name=None, validate=None):
  """Builds an If node. `validate(then_out, else_out)` may inspect the raw branch
  results first (AutoGraph names undefined symbols there)."""
  raw = []

  def branch(fn):
    def run():
      out = fn()
      raw.append(out)
      return _expand(out)
    return run
  then_g = build_graph(branch(true_fn), [], "cond_true")
  else_g = build_graph(branch(false_fn), [], "cond_false")
  if validate is not None:
    validate(raw[0], raw[1])
  _check_branches(then_g, else_g)
  _reconcile(then_g, else_g)
  _check_dtypes(then_g, else_g)
  caps, (then_idx, else_idx) = _merged_captures([then_g, else_g])
  specs = []
  for a, b in zip(then_g.outputs, else_g.outputs):
    specs.append((a.shape.most_specific_compatible_shape(b.shape), a.dtype))
  note_captured_variables(caps)
  od = cf.If if cf._stateful(then_g, else_g) else cf.StatelessIf
  attrs = {"then_idx": then_idx, "else_idx": else_idx, "out_specs": tuple(specs),
           "then_graph": then_g, "else_graph": else_g}
  outs = execute(od, [pred] + caps, attrs, name or "cond")
  outs = list(outs) if isinstance(outs, tuple) else [outs]
  flat = list(then_g.output_template)
  for pos, t in zip(then_g.output_positions, outs):
    flat[pos] = t
  return _collapse(nest.pack_sequence_as(then_g.structured_outputs, flat), raw[0])


def _same_constant(x, y):
  if x is y:
    return True
  if type(x) is not type(y):
    return False
  try:
    return bool(x == y)
  except Exception:  # noqa: BLE001 - incomparable objects are different
    return False


def _reconcile(a, b):
  """Makes both branches return tensors at the same positions: a Python number
  facing a tensor (or a different number) becomes a constant in its branch."""
  ta, tb = a.output_template, b.output_template
  changed = False
  for k, (x, y) in enumerate(zip(ta, tb)):
    xt, yt = isinstance(x, Tensor), isinstance(y, Tensor)
    if xt and yt:
      continue
    ux, uy = _undefined(x), _undefined(y)
    if ux or uy:
      if ux and uy:
        continue
      undef, other, g = (x, y, a) if ux else (y, x, b)
      if _undefined(undef) == "return" and isinstance(other, Tensor):
        # NOTE: a return value set in one branch only (`if c: return x`): the
        # other branch's value is never used, so zeros of its type stand in (TF).
        _set_output(g, k, np.zeros([d or 0 for d in other.shape.as_list()]
                                   if other.shape.rank is not None else [],
                                   other.dtype._np), other.dtype)
      else:
        ta[k] = tb[k] = undef  # defined in one branch only and not used later: dropped
      changed = True
      continue
    if not xt and not yt:
      if _same_constant(x, y):
        continue
      if not (_is_number(x) and _is_number(y)):
        raise ValueError(f"true_fn and false_fn arguments to tf.cond must return the same "
                         f"values for non-tensor outputs; output #{k} is {x!r} in one branch "
                         f"and {y!r} in the other")
      # NOTE: each number converts on its own (1 -> int32, 2.5 -> float32) and
      # the dtype check then fails, as in TF.
      _set_output(a, k, x, convert_to_tensor(x).dtype)
      _set_output(b, k, y, convert_to_tensor(y).dtype)
    elif xt:
      _set_output(b, k, y, x.dtype)
    else:
      _set_output(a, k, x, y.dtype)
    changed = True
  if changed:
    for g in (a, b):
      g.output_positions = [i for i, v in enumerate(g.output_template) if isinstance(v, Tensor)]
      g.outputs = [g.output_template[i] for i in g.output_positions]


def _is_number(x):
  return isinstance(x, (int, float, np.number, np.bool_)) and not isinstance(x, Tensor)


def _set_output(g, k, value, dtype):
  if not _is_number(value) and not isinstance(value, np.ndarray):
    raise ValueError(f"true_fn and false_fn arguments to tf.cond must return tensors at the "
                     f"same positions; one branch returns {value!r} where the other returns a "
                     f"tensor")
  saved = ctx.graph
  ctx.graph = g
  try:
    t = execute(Identity, [convert_to_tensor(value, dtype)], {}, "Identity")
  finally:
    ctx.graph = saved
  g.output_template[k] = t


def _check_branches(a, b):
  try:
    nest.assert_same_structure(a.structured_outputs, b.structured_outputs, check_types=False)
  except (ValueError, TypeError) as e:
    raise ValueError(f"true_fn and false_fn arguments to tf.cond must have the same number, "
                     f"type, and overall structure of return values. {e}") from None


def _check_dtypes(a, b):
  for x, y in zip(a.outputs, b.outputs):
    if x.dtype is not y.dtype:
      raise TypeError(f"true_fn and false_fn arguments to tf.cond must have the same number, "
                      f"type, and overall structure of return values.\n\ntrue_fn output: {x}\n"
                      f"false_fn output: {y}\n\nError details:\n{x} and {y} have different "
                      f"types")


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
  """The function of the first true predicate (or `default`)."""
  pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else \
      as_sequence(pred_fn_pairs, "case", "pred_fn_pairs")
  for pair in pairs:
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
      raise TypeError(f"case: each of `pred_fn_pairs` must be a (predicate, callable) pair, "
                      f"got {pair!r:.80}")
  for p, f in pairs:
    if not callable(f):
      raise TypeError(f"fn for pred {p!r} must be callable.")
  if default is None:
    if not pairs:
      raise ValueError("pred_fn_pairs must not be empty without a default")
    *pairs, (last_p, default) = pairs
  if exclusive and ctx.graph is None:
    hits = sum(bool(convert_to_tensor(p)._value) for p, _ in pairs)
    if hits > 1:
      raise InvalidArgumentError(None, None, "Input error: exclusive=True and more than one "
                                 "predicate evaluated as True.")
  fn = default
  for p, f in reversed(pairs):
    fn = (lambda p, f, rest: (lambda: cond(p, f, rest)))(p, f, fn)
  return fn()


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
  """Calls `branch_fns[branch_index]` (or `default` when out of range)."""
  fns = dict(branch_fns) if isinstance(branch_fns, dict) else \
      dict(enumerate(as_sequence(branch_fns, "switch_case", "branch_fns")))
  keys = sorted(fns)
  if not keys:
    raise ValueError("branch_fns must not be empty")
  idx = convert_to_tensor(branch_index)
  if not idx.dtype.is_integer:
    raise TypeError(f"branch_index must be an integer tensor, got {idx.dtype.name}")
  if default is None:
    default = fns[keys[-1]]
  if ctx.graph is None:
    return fns.get(int(idx._value), default)()
  from tensorlet.ops.math_ops import equal
  fn = default
  for k in reversed(keys):
    fn = (lambda k, f, rest: (lambda: cond(equal(idx, k), f, rest)))(k, fns[k], fn)
  return fn()


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
  """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true.

  Args:
    cond, body: callables of the loop variables.
    loop_vars: a tensor or (nested) list/tuple of tensors.
    shape_invariants: shapes the variables keep across iterations (None dims vary).
    maximum_iterations: an upper bound on the number of iterations.
  Returns:
    The loop variables after the last iteration, with `loop_vars`' structure.
  """
  if not callable(cond):
    raise TypeError("'cond' must be callable.")
  if not callable(body):
    raise TypeError("'body' must be callable.")
  single = not isinstance(loop_vars, (list, tuple))
  structure = [loop_vars] if single else loop_vars
  if ctx.graph is None:
    vars_ = structure
    i = 0
    limit = None if maximum_iterations is None else int(maximum_iterations)
    while (limit is None or i < limit):
      c = cond(*vars_)
      if not (c._dtype is _dt.bool if isinstance(c, Tensor) else
              isinstance(c, (bool, np.bool_))):
        # NOTE: checked on every evaluation, not only the first: a truthy string
        # or list would otherwise loop forever.
        raise TypeError(f"The cond of a tf.while_loop must return a boolean (a Python bool or "
                        f"a scalar bool tensor), got {c!r:.80}")
      if not bool(c):
        break
      out = body(*vars_)
      out = [out] if single or not isinstance(out, (list, tuple)) else out
      nest.assert_same_structure(list(vars_), list(out), check_types=False)
      vars_ = out
      i += 1
    return vars_[0] if single else _same_sequence(loop_vars, vars_)
  template = list(structure)
  structure = _expand(template)
  flat = [convert_to_tensor(v) for v in nest.flatten(structure)]
  if shape_invariants is not None and any(hasattr(x, "_to_components") for x in
                                          nest.flatten(template)):
    shape_invariants = None  # NOTE: TensorArray flows are scalars; invariants are for tensors
  if shape_invariants is not None:
    inv = [TensorShape(s) for s in nest.flatten(
        [shape_invariants] if single else shape_invariants)]
  else:
    inv = [t.shape for t in flat]
  for t, s in zip(flat, inv):
    if not s.is_compatible_with(t.shape):
      raise ValueError(f"The shape invariant specified for {_tname(t)} is not compatible with "
                       f"the initial shape of the loop variable. It enters the loop with shape "
                       f"{t.shape}, but the specified shape invariant is {s}.")
  specs = [TensorSpec(s, t.dtype) for t, s in zip(flat, inv)]

  def pack(xs):
    return _collapse(nest.pack_sequence_as(structure, list(xs)), template)

  body_template = []

  def body_flat(*xs):
    out = body(*pack(xs))
    out = [out] if single or not isinstance(out, (list, tuple)) else out
    body_template.append(list(out))
    out = _expand(list(out))
    try:
      nest.assert_same_structure(list(structure), list(out), check_types=False)
    except (ValueError, TypeError) as e:
      raise ValueError(f"The body of a tf.while_loop must return the same structure as "
                       f"loop_vars. {e}") from None
    return [_to_tensor_leaf(o) for o in nest.flatten(out)]
  cond_g = build_graph(lambda *xs: _to_tensor_leaf(cond(*pack(xs))), specs, "while_cond")
  body_g = build_graph(body_flat, specs, "while_body")
  if len(cond_g.outputs) != 1 or cond_g.outputs[0].dtype is not _dt.bool:
    raise TypeError("The cond of a tf.while_loop must return a scalar bool tensor")
  for t, spec, o in zip(flat, specs, body_g.outputs):
    if o.dtype is not t.dtype:
      raise TypeError(f"{_tname(t)} enters the loop with type {t.dtype.name}, but has type "
                      f"{o.dtype.name} after one iteration.")
    if not o.shape.is_subtype_of(spec.shape):
      raise ValueError(f"Input tensor {_tname(t)} enters the loop with shape {spec.shape}, but "
                       f"has shape {o.shape} after one iteration. To allow the shape to vary "
                       f"across iterations, use the `shape_invariants` argument of "
                       f"tf.while_loop to specify a less-specific shape.")
  caps, (cond_idx, body_idx) = _merged_captures([cond_g, body_g])
  note_captured_variables(caps)
  inputs = flat + caps
  has_max = maximum_iterations is not None
  if has_max:
    inputs.append(convert_to_tensor(maximum_iterations, _dt.int32)
                  if not isinstance(maximum_iterations, Tensor) else maximum_iterations)
  attrs = {"n_vars": len(flat), "cond_idx": cond_idx, "body_idx": body_idx,
           "has_max": has_max, "var_specs": tuple((s.shape, s.dtype) for s in specs),
           "keep_history": False, "cond_graph": cond_g, "body_graph": body_g}
  outs = execute(cf.While, inputs, attrs, name or "while")
  # NOTE: rebuilt like the body's outputs (a TensorArray written in the body knows
  # its element shape there).
  res = _collapse(nest.pack_sequence_as(structure, list(outs[:len(flat)])), body_template[0])
  return res[0] if single else _same_sequence(loop_vars, res)


def _same_sequence(like, values):
  """`values` as the list/tuple/namedtuple type of `like` (TF2 returns loop_vars' structure)."""
  if hasattr(like, "_fields"):
    return type(like)(*values)
  return type(like)(values)


def _as_list(x):
  return list(x) if isinstance(x, (list, tuple)) else [x]


def _tname(t):
  return f"'{t.name}'" if not isinstance(t, EagerTensor) else "a loop variable"
