"""`return` inside control flow -> `do_return = True; retval_ = value`, with the
statements after it guarded by `if not do_return:` and loops stopped by it,
so both branches of a tensor `if` can "return" (TF's conversion)."""
import ast

from tensorlet.autograph.pyct import analysis, templates

_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _has_nested_return(fn):
  for s in fn.body:
    if isinstance(s, _COMPOUND) and analysis.contains(s, ast.Return, stop=_SCOPES):
      return True
  return False


def _returns(stmts):
  """Whether a block returns on every path."""
  return any(isinstance(s, ast.Return) or
             (isinstance(s, ast.If) and _returns(s.body) and _returns(s.orelse))
             for s in stmts)


class _Returns:
  def __init__(self, flag, retval):
    self.flag = flag
    self.retval = retval

  def not_flag(self):
    return templates.replace_expr("ag__.not_(flag)", flag=self.flag)

  def block(self, stmts):
    out = []
    for i, s in enumerate(stmts):
      if isinstance(s, ast.Return):
        value = s.value if s.value is not None else ast.Constant(None)
        new = templates.replace("flag = True\nretval = value", flag=self.flag,
                                retval=self.retval, value=value)
        out.extend(ast.copy_location(n, s) for n in new)
        return out
      had = analysis.contains(s, ast.Return, stop=_SCOPES)
      rest = stmts[i + 1:]
      if had and isinstance(s, ast.If):
        body_returns, else_returns = _returns(s.body), _returns(s.orelse)
        if body_returns or else_returns:
          # NOTE: as TF, the statements after an `if` with one branch that always
          # returns move into the other branch, so a tensor `if` whose other branch
          # falls off the end fails ("must also have a return statement").
          if not body_returns:
            s.body = s.body + rest
          elif not else_returns:
            s.orelse = s.orelse + rest
          out.append(self.stmt(s))
          return out
      out.append(self.stmt(s) if had else s)
      if had and rest:
        guard = ast.If(test=self.not_flag(), body=self.block(rest), orelse=[])
        out.append(ast.copy_location(guard, rest[0]))
        return out
    return out

  def stmt(self, s):
    if isinstance(s, ast.If):
      s.body = self.block(s.body) or [ast.Pass()]
      s.orelse = self.block(s.orelse)
    elif isinstance(s, ast.While):
      s.body = self.block(s.body) or [ast.Pass()]
      s.test = templates.replace_expr("ag__.and_(lambda: nf, lambda: test)", nf=self.not_flag(),
                                      test=s.test)
      s.orelse = self.block(s.orelse)
    elif isinstance(s, ast.For):
      s.body = self.block(s.body) or [ast.Pass()]
      s.orelse = self.block(s.orelse)
      extra = getattr(s, "ag_extra_tests", [])
      s.ag_extra_tests = extra + [self.not_flag()]
    elif isinstance(s, ast.With):
      s.body = self.block(s.body) or [ast.Pass()]
    elif isinstance(s, ast.Try):
      s.body = self.block(s.body) or [ast.Pass()]
      for h in s.handlers:
        h.body = self.block(h.body) or [ast.Pass()]
      s.orelse = self.block(s.orelse)
      s.finalbody = self.block(s.finalbody)
    return s


def transform(fn, ctx):
  """Rewrites the returns of function node `fn` (not of functions nested in it)."""
  if not _has_nested_return(fn):
    return fn
  flag, retval = ctx.new_name("do_return"), ctx.new_name("retval_")
  body = fn.body
  doc = []
  if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
      isinstance(body[0].value.value, str):
    doc, body = body[:1], body[1:]
  conv = _Returns(ast.Name(flag, ast.Load()), ast.Name(retval, ast.Load()))
  new = conv.block(body)
  head = templates.replace("flag = False\nretval = ag__.UndefinedReturnValue()", flag=flag,
                           retval=retval)
  tail = templates.replace("return retval", retval=retval)
  fn.body = doc + head + new + tail
  return fn
