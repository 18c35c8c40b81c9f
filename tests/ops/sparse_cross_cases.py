"""Inputs for tf.sparse.cross / cross_hashed, shared by make_sparse_cross_fixture.py (real
TF) and test_sparse_cross_ops.py (tensorlet)."""


def inputs(tf, name):
  a = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]], tf.constant(["a", "b", "c", "d"]),
                             [4, 2])
  b = tf.constant([["x", "y"], ["z", "w"], ["q", "r"], ["s", "t"]])
  c = tf.sparse.SparseTensor([[0, 0], [1, 0], [2, 0], [3, 1]],
                             tf.constant([7, 8, 9, 10], tf.int64), [4, 3])
  d = tf.constant([[1, 2], [3, 4], [5, 6], [7, 8]], tf.int64)
  return {"abc": [a, b, c], "bc": [b, c], "ac": [a, c], "bd": [b, d], "cb": [c, b]}[name.split("/")[0]]


CASES = [("abc/cross", "cross", {}), ("bc/sep", "cross", {"separator": "+"}),
         ("bd/cross", "cross", {}), ("cb/cross", "cross", {}),
         ("abc/hashed", "cross_hashed", {"num_buckets": 1000}),
         ("bc/hashed0", "cross_hashed", {}),
         ("ac/key", "cross_hashed", {"num_buckets": 97, "hash_key": 12345}),
         ("bd/hashed", "cross_hashed", {"num_buckets": 2 ** 62})]
