"""`if`, `while` and `for` -> calls of ag__.if_stmt / while_stmt / for_stmt.

Each statement becomes closures over the enclosing function's variables:

    def if_body():            def get_state():          ag__.if_stmt(test,
      nonlocal x                return (x,)               if_body, else_body,
      x = x + 1             def set_state(vars_):         get_state, set_state,
    def else_body():          nonlocal x                  ('x',), 1)
      nonlocal x              (x,) = vars_
      x = x - 1

The state of a statement is the names it assigns that are read later (or, for
loops, read before being assigned in the body). Names in a state that are not
assigned before the statement start as `ag__.Undefined(name)` at the top of
the function, so the `nonlocal` declarations always have a binding and the
operators can say which symbol was left undefined.
"""
import ast

from tensorlet.autograph.pyct import analysis, templates

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _names_tuple(names, store=False):
  ctx = ast.Store() if store else ast.Load()
  return ast.Tuple(elts=[ast.Name(n, ctx) for n in names], ctx=ctx)


def _nonlocal(names):
  return [ast.Nonlocal(names=list(names))] if names else []


def _init(names):
  return [templates.replace(f"{n} = ag__.Undefined({n!r})")[0] for n in sorted(names)]


class _Converter:
  def __init__(self, ctx, user_globals, user_nonlocals):
    self.ctx = ctx
    self.user_globals = user_globals  # names the user declared global / nonlocal:
    self.user_nonlocals = user_nonlocals  # never state, re-declared where assigned
    self.excluded = user_globals | user_nonlocals

  # A scope's statements -> (new statements, names that need a binding in this scope)
  def block(self, stmts, live_after):
    out, inits = [], set()
    assigned = set()  # by plain assignments earlier in this block: no Undefined needed
    for i, s in enumerate(stmts):
      after = analysis.reads(stmts[i + 1:]) | live_after
      if isinstance(s, ast.If):
        new, need = self.if_(s, after)
      elif isinstance(s, ast.While):
        new, need = self.while_(s, after)
      elif isinstance(s, ast.For):
        new, need = self.for_(s, after)
      elif isinstance(s, (ast.With, ast.Try)):
        new, need = [s], set()
        for attr in ("body", "orelse", "finalbody"):
          if getattr(s, attr, None):
            b, n = self.block(getattr(s, attr), after)
            setattr(s, attr, b)
            need |= n
        for h in getattr(s, "handlers", []):
          h.body, n = self.block(h.body, after)
          need |= n
      else:
        new, need = [s], set()
      for n in new:
        if not hasattr(n, "lineno") or n is not s:
          ast.copy_location(n, s)
        _fill_locations(n, s)
      out.extend(new)
      inits |= need - assigned
      if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        assigned |= analysis.writes(s)
    return out, inits

  def _scope_body(self, stmts, live_after, nonlocals, params=()):
    """Body of a generated function: its own inits first, outer ones passed up."""
    body, need = self.block(stmts, live_after)
    local = need - set(nonlocals) - set(params)
    written = analysis.writes(stmts)
    decl = [ast.Global(names=sorted(written & self.user_globals))] \
        if written & self.user_globals else []
    decl += _nonlocal(sorted(written & self.user_nonlocals))
    return (_nonlocal(nonlocals) + decl + _init(local) + (body or [ast.Pass()]),
            need & set(nonlocals))

  def _state_fns(self, names):
    get = self.ctx.new_name("get_state")
    set_ = self.ctx.new_name("set_state")
    ret = ast.Return(value=_names_tuple(names))
    get_fn = ast.FunctionDef(name=get, args=_no_args(), body=[ret], decorator_list=[],
                             returns=None, type_params=[])
    if names:
      set_body = _nonlocal(names) + [ast.Assign(targets=[_names_tuple(names, store=True)],
                                                value=ast.Name("vars_", ast.Load()))]
    else:
      set_body = [ast.Pass()]
    set_fn = ast.FunctionDef(name=set_, args=_args(["vars_"]), body=set_body,
                             decorator_list=[], returns=None, type_params=[])
    return [get_fn, set_fn], get, set_

  def _state(self, modified, wanted):
    return sorted((modified & wanted) - self.excluded)

  def if_(self, node, after):
    modified = analysis.writes(node.body + node.orelse)
    # NOTE: a name a branch assigns before reading it, and nothing reads after
    # the statement, stays local to that branch (TF's liveness rule).
    live = analysis.live_in(node.body) | analysis.live_in(node.orelse)
    names = self._state(modified, after | live)
    body, up_b = self._scope_body(node.body, after, names)
    orelse, up_e = self._scope_body(node.orelse, after, names)
    b_name, e_name = self.ctx.new_name("if_body"), self.ctx.new_name("else_body")
    fns = [ast.FunctionDef(name=b_name, args=_no_args(), body=body, decorator_list=[],
                           returns=None, type_params=[]),
           ast.FunctionDef(name=e_name, args=_no_args(), body=orelse, decorator_list=[],
                           returns=None, type_params=[])]
    state_fns, get, set_ = self._state_fns(names)
    call = templates.replace(
        f"ag__.if_stmt(test, {b_name}, {e_name}, {get}, {set_}, symbols, {len(names)})",
        test=node.test, symbols=ast.Tuple([ast.Constant(n) for n in names], ast.Load()))
    return fns + state_fns + call, set(names) | up_b | up_e

  def while_(self, node, after):
    opts = _loop_options(node)
    modified = analysis.writes(node.body)
    live_in = analysis.live_in(node.body) | analysis.reads(node.test)
    names = self._state(modified, after | live_in)
    loop_reads = analysis.live_in(node.body) | analysis.reads(node.test)  # the next iteration
    body, up = self._scope_body(node.body, after | loop_reads, names)
    t_name, b_name = self.ctx.new_name("loop_test"), self.ctx.new_name("loop_body")
    test_fn = ast.FunctionDef(name=t_name, args=_no_args(), body=[ast.Return(value=node.test)],
                              decorator_list=[], returns=None, type_params=[])
    body_fn = ast.FunctionDef(name=b_name, args=_no_args(), body=body, decorator_list=[],
                              returns=None, type_params=[])
    state_fns, get, set_ = self._state_fns(names)
    call = templates.replace(
        f"ag__.while_stmt({t_name}, {b_name}, {get}, {set_}, symbols, opts)", opts=opts,
        symbols=ast.Tuple([ast.Constant(n) for n in names], ast.Load()))
    return [test_fn, body_fn] + state_fns + call, set(names) | up

  def for_(self, node, after):
    opts = _loop_options(node)
    targets = analysis.writes(node.target)
    modified = analysis.writes(node.body) | targets
    extra = getattr(node, "ag_extra_tests", [])
    live_in = (analysis.live_in(node.body) - targets) | analysis.reads(extra)
    names = self._state(modified, after | live_in)
    # what the next iteration reads (the extra test holds break/return flags)
    loop_reads = (analysis.live_in(node.body) - targets) | analysis.reads(extra)
    itr = self.ctx.new_name("itr")
    assign = ast.copy_location(
        ast.Assign(targets=[node.target], value=ast.Name(itr, ast.Load())), node)
    body, up = self._scope_body([assign] + node.body, after | loop_reads, names, params=[itr])
    b_name = self.ctx.new_name("loop_body")
    body_fn = ast.FunctionDef(name=b_name, args=_args([itr]), body=body, decorator_list=[],
                              returns=None, type_params=[])
    out = [body_fn]
    if extra:
      expr = extra[-1]
      for e in reversed(extra[:-1]):
        expr = templates.replace_expr("ag__.and_(lambda: a, lambda: b)", a=e, b=expr)
      x_name = self.ctx.new_name("extra_test")
      out.append(ast.FunctionDef(name=x_name, args=_no_args(), body=[ast.Return(value=expr)],
                                 decorator_list=[], returns=None, type_params=[]))
    else:
      x_name = "None"
    state_fns, get, set_ = self._state_fns(names)
    call = templates.replace(
        f"ag__.for_stmt(iter_, {x_name}, {b_name}, {get}, {set_}, symbols, opts)",
        iter_=node.iter, opts=opts, symbols=ast.Tuple([ast.Constant(n) for n in names], ast.Load()))
    return out + state_fns + call, set(names) | up


def _loop_options(node):
  """Takes the loop's `tf.autograph.experimental.set_loop_options(...)` call out
  of its body; its keywords become the loop's options, evaluated before the
  loop (as TF does)."""
  keys, values, body = [], [], []
  for s in node.body:
    call = s.value if isinstance(s, ast.Expr) else None
    kwargs = _set_loop_options_kwargs(call) if isinstance(call, ast.Call) else None
    if kwargs is not None:
      for k, v in kwargs:
        keys.append(ast.Constant(k))
        values.append(v)
    else:
      body.append(s)
  node.body = body or [ast.Pass()]
  return ast.Dict(keys=keys, values=values)


def _set_loop_options_kwargs(call):
  """[(keyword, value node)] of a set_loop_options call (plain, or as call_trees
  rewrote it: ag__.converted_call(f, args, {kwargs})), else None."""
  func = call.func
  if getattr(func, "attr", None) == "converted_call" and len(call.args) == 3:
    func = call.args[0]
    kw = call.args[2]
    pairs = [(k.value, v) for k, v in zip(kw.keys, kw.values)] \
        if isinstance(kw, ast.Dict) and all(isinstance(k, ast.Constant) for k in kw.keys) \
        else None
  else:
    pairs = [(k.arg, k.value) for k in call.keywords] \
        if all(k.arg for k in call.keywords) else None
  name = getattr(func, "attr", None) or getattr(func, "id", None)
  return pairs if name == "set_loop_options" else None


def _fill_locations(node, origin):
  """Gives generated nodes the user statement's line (user sub-nodes keep theirs)."""
  todo = [(node, origin)]
  while todo:
    n, parent = todo.pop()
    if "lineno" in n._attributes:
      if getattr(n, "lineno", None) is None and getattr(parent, "lineno", None) is not None:
        n.lineno, n.col_offset = parent.lineno, parent.col_offset
        n.end_lineno, n.end_col_offset = parent.end_lineno, parent.end_col_offset
      parent = n
    todo.extend((c, parent) for c in ast.iter_child_nodes(n))


def _declared(fn, kind):
  """Names of fn's own `global` (or `nonlocal`) statements, not its nested functions'."""
  out, todo = set(), list(fn.body)
  while todo:
    n = todo.pop()
    if isinstance(n, kind):
      out.update(n.names)
    elif not isinstance(n, _SCOPES):
      todo.extend(ast.iter_child_nodes(n))
  return out


def _args(names):
  return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None,
                       kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _no_args():
  return _args([])


def transform(fn, ctx):
  """Converts the control flow of function node `fn` (nested defs are left alone)."""
  params = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
  if fn.args.vararg:
    params.add(fn.args.vararg.arg)
  if fn.args.kwarg:
    params.add(fn.args.kwarg.arg)
  user_globals, user_nonlocals = _declared(fn, ast.Global), _declared(fn, ast.Nonlocal)
  excluded = user_globals | user_nonlocals
  conv = _Converter(ctx, user_globals, user_nonlocals)
  body = fn.body
  doc = []
  if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
      isinstance(body[0].value.value, str):
    doc, body = body[:1], body[1:]
  new, need = conv.block(body, set())
  inits = _init(need - params - excluded)
  for s in inits:
    ast.copy_location(s, fn)
  fn.body = doc + inits + (new or [ast.Pass()])
  return fn
