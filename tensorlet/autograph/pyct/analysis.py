"""Static facts about statements that the converters need: which names a
statement assigns, which it reads, and which are read before being assigned
(live on entry). Nested function and class bodies are opaque: they contribute
their own name (and `nonlocal` names) as writes and their free reads as reads.
"""
import ast

__all__ = ["writes", "reads", "live_in", "must_write", "contains"]


class _Collector(ast.NodeVisitor):
  def __init__(self):
    self.w = set()
    self.r = set()

  def visit_Name(self, node):
    if isinstance(node.ctx, ast.Load):
      self.r.add(node.id)
    else:
      self.w.add(node.id)

  def visit_FunctionDef(self, node):
    self.w.add(node.name)
    for d in node.decorator_list:
      self.visit(d)
    for d in node.args.defaults + node.args.kw_defaults:
      if d is not None:
        self.visit(d)
    inner = _Collector()
    for s in node.body:
      inner.visit(s)
    params = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
    if node.args.vararg:
      params.add(node.args.vararg.arg)
    if node.args.kwarg:
      params.add(node.args.kwarg.arg)
    nonlocals = set()
    for s in ast.walk(node):
      if isinstance(s, ast.Nonlocal):
        nonlocals.update(s.names)
    self.w |= nonlocals
    self.r |= (inner.r - params) | nonlocals

  visit_AsyncFunctionDef = visit_FunctionDef

  def visit_Lambda(self, node):
    inner = _Collector()
    inner.visit(node.body)
    params = {a.arg for a in node.args.args}
    self.r |= inner.r - params

  def visit_ClassDef(self, node):
    self.w.add(node.name)
    for b in node.bases:
      self.visit(b)

  def _comp(self, node):
    inner = _Collector()
    for g in node.generators:
      inner.visit(g)
    for attr in ("elt", "key", "value"):
      if hasattr(node, attr):
        inner.visit(getattr(node, attr))
    self.r |= inner.r - inner.w

  visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comp

  def visit_Global(self, node):
    pass

  def visit_AugAssign(self, node):
    self.generic_visit(node)
    if isinstance(node.target, ast.Name):
      self.r.add(node.target.id)  # `x += 1` reads x


def _collect(nodes):
  c = _Collector()
  for n in nodes if isinstance(nodes, list) else [nodes]:
    c.visit(n)
  return c


def writes(nodes):
  return _collect(nodes).w


def reads(nodes):
  return _collect(nodes).r


def live_in(stmts):
  """Names that may be read before being assigned, walking statements in order.

  A name counts as assigned only where it surely is: by both branches of an
  `if`, never by a loop body (it may run zero times)."""
  written = set()
  live = set()
  for s in stmts if isinstance(stmts, list) else [stmts]:
    if isinstance(s, (ast.Assign, ast.AnnAssign)):
      live |= reads(s.value) - written if s.value is not None else set()
      written |= writes(s)
    elif isinstance(s, ast.If):
      live |= (reads(s.test) | live_in(s.body) | live_in(s.orelse)) - written
      written |= must_write(s.body) & must_write(s.orelse)
    elif isinstance(s, ast.For):
      inner = (live_in(s.body) - writes(s.target)) | live_in(s.orelse)
      live |= (reads(s.iter) | inner) - written
    elif isinstance(s, ast.While):
      live |= (reads(s.test) | live_in(s.body) | live_in(s.orelse)) - written
    else:
      c = _collect(s)
      live |= c.r - written
      written |= c.w
  return live


def must_write(stmts):
  """Names that every path through `stmts` assigns (loops and try: none)."""
  out = set()
  for s in stmts:
    if isinstance(s, ast.If):
      out |= must_write(s.body) & must_write(s.orelse)
    elif isinstance(s, ast.With):
      out |= writes(s.items) | must_write(s.body)
    elif not isinstance(s, (ast.For, ast.While, ast.Try)):
      out |= writes(s)
  return out


def contains(nodes, types, stop=(ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
  """Whether any node of `types` occurs, not looking into `stop` nodes."""
  todo = list(nodes) if isinstance(nodes, list) else [nodes]
  while todo:
    n = todo.pop()
    if isinstance(n, types):
      return True
    for c in ast.iter_child_nodes(n):
      if not isinstance(c, stop):
        todo.append(c)
  return False
