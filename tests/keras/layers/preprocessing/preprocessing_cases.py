"""Cases shared by make_preprocessing_fixture.py (run under real TF/Keras 2) and
test_preprocessing_vs_keras.py: (name, layer class, constructor kwargs, adapt data or
None, call inputs). Inputs are plain lists; {"ragged": rows} marks a ragged input."""
TEXTS = ["The Cat sat on the mat.", "The dog, the cat & the BIRD!", "  Héllo   wörld  ",
         "it's a dog's life", ""]
QUERY = ["the cat ate a dog", "zebra, the"]
VOCAB = ["a", "b", "c", "d"]
WORDS = [["a", "b", "c", "d"], ["d", "z", "b", "z"]]
BAG = [["a", "b", "a", "z"], ["", "c", "d", "d"]]
DOCS = [["b", "a", "c"], ["a", "b", "d"], ["d", "b", "x"]]
INTS = [[12, 1138, 42], [42, 1000, 36], [-3, -4, 5]]
STRS = [["A"], ["B"], ["C"], ["D"], ["E"], [""], ["héllo"], ["a much longer string " * 4]]

CASES = []


def case(name, cls, kwargs, adapt, *inputs):
  CASES.append((name, cls, kwargs, adapt, list(inputs)))


for mode in ("int", "one_hot", "multi_hot", "count"):
  for extra in ({}, {"mask_value": ""}, {"salt": 133}, {"salt": [7, 2 ** 40 + 3]}):
    case(f"hashing/{mode}/{sorted(extra.items())}", "Hashing", dict(num_bins=5, output_mode=mode, **extra),
         None, STRS if mode != "one_hot" else [s[0] for s in STRS])
case("hashing/ints", "Hashing", dict(num_bins=7), None, INTS)
case("hashing/int_mask", "Hashing", dict(num_bins=7, mask_value=42), None, INTS)
case("hashing/sparse", "Hashing", dict(num_bins=5, output_mode="count", sparse=True), None,
     [["a", "b", "a"], ["c", "c", "d"]])
case("hashing/ragged", "Hashing", dict(num_bins=5), None, {"ragged": [["a", "b"], ["c"]]})

for mode in ("one_hot", "multi_hot", "count"):
  case(f"category/{mode}", "CategoryEncoding", dict(num_tokens=6, output_mode=mode), None,
       [0, 1, 5] if mode == "one_hot" else [[0, 1, 1, 5], [3, 3, 2, 0]])
case("category/sparse", "CategoryEncoding", dict(num_tokens=4, sparse=True), None,
     [[0, 1, 1], [3, 3, 2]])
case("category/ragged", "CategoryEncoding", dict(num_tokens=4, output_mode="count"), None,
     {"ragged": [[0, 1, 1], [3]]})
case("category/scalar", "CategoryEncoding", dict(num_tokens=4), None, 2)

for extra in ({}, {"mask_token": ""}, {"num_oov_indices": 2},
              {"mask_token": "", "num_oov_indices": 3, "oov_token": "OOV"}):
  case(f"string/int/{sorted(extra.items())}", "StringLookup", dict(vocabulary=VOCAB, **extra),
       None, WORDS, {"ragged": [["a", "q"], ["d"]]}, "b")
for mode in ("one_hot", "multi_hot", "count", "tf_idf"):
  for extra in ({}, {"mask_token": ""}, {"pad_to_max_tokens": True, "max_tokens": 8},
                {"sparse": True}):
    kw = dict(vocabulary=VOCAB, output_mode=mode, **extra)
    if mode == "tf_idf":
      kw["idf_weights"] = [0.5, 0.25, 0.2, 0.1]
    case(f"string/{mode}/{sorted(extra.items())}", "StringLookup", kw, None,
         ["a", "b", "", "z"] if mode == "one_hot" else BAG)
case("string/invert", "StringLookup", dict(vocabulary=VOCAB, invert=True), None,
     [[0, 1, 2, 3, 4, 5]])
case("string/invert_mask", "StringLookup", dict(vocabulary=VOCAB, invert=True, mask_token="M"),
     None, [[0, 1, 2, 3, 4, 5, -1]])
case("string/adapt", "StringLookup", {}, ["b", "a", "c", "a", "b", "d", "[UNK]", "x", "x", "x"],
     ["x", "a", "q"])
case("string/adapt_max", "StringLookup", dict(max_tokens=3, mask_token=""),
     ["b", "a", "c", "a", "b", "d", "", "", "", ""], ["", "b", "a"])
case("string/adapt_tfidf", "StringLookup", dict(output_mode="tf_idf"), DOCS,
     [["b", "a", "q", "q"]])
case("string/adapt_tfidf_pad", "StringLookup",
     dict(output_mode="tf_idf", pad_to_max_tokens=True, max_tokens=8, mask_token=""), DOCS,
     [["b", "a", "q", "q"], ["x", "", "d", "c"]])
case("string/adapt_multi", "StringLookup", dict(output_mode="multi_hot", num_oov_indices=2),
     DOCS, [["b", "a", "q", "zz"]])

case("integer/int", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42]), None, INTS)
case("integer/mask_oov2", "IntegerLookup",
     dict(vocabulary=[12, 36, 1138, 42], mask_token=0, num_oov_indices=2), None,
     [[12, 1138, 0], [7, 1000, 36], [-3, -4, 5]])
case("integer/adapt", "IntegerLookup", {}, [[12, 1138, 42], [42, 1000, 36], [-1, -1, -1],
                                            [0, 0, 0]], INTS)
case("integer/adapt_mask", "IntegerLookup", dict(mask_token=0),
     [[12, 1138, 42], [42, 1000, 36], [-1, -1, -1], [0, 0, 0]], [[0, 42, 7]])
case("integer/invert", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42], invert=True), None,
     [[0, 1, 2, 3, 4, 5]])
case("integer/count", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42], output_mode="count"),
     None, INTS)

for i, kw in enumerate([{}, dict(max_tokens=6), dict(output_sequence_length=4),
                        dict(output_sequence_length=10), dict(ngrams=2), dict(ngrams=[1, 3]),
                        dict(split="character", max_tokens=12), dict(standardize="lower"),
                        dict(standardize="strip_punctuation"), dict(standardize=None),
                        dict(output_mode="multi_hot"),
                        dict(output_mode="count", pad_to_max_tokens=True, max_tokens=20),
                        dict(output_mode="tf_idf"), dict(output_mode="tf_idf", ngrams=2),
                        dict(output_mode="count", sparse=True)]):
  case(f"text/{i}/{sorted(kw.items())}", "TextVectorization", kw, TEXTS, QUERY, [[q] for q in QUERY])
case("text/ragged", "TextVectorization", dict(ragged=True), TEXTS, QUERY)
case("text/vocab", "TextVectorization",
     dict(vocabulary=["the", "cat", "sat"], output_sequence_length=3), None,
     ["The cat sat there now"])
case("text/no_split", "TextVectorization", dict(split=None), TEXTS,
     [["the cat ate a dog"], ["the"]])

# {"tuple": [...]}: several inputs, passed as a tuple.
CROSS = {"tuple": [[1, 2, -7, 2 ** 40, 0], ["a", "b", "", "hello", "x" * 70]]}
CROSS3 = {"tuple": [[[1], [2], [3]], [["a"], ["b"], ["c"]], [["z"], ["y"], ["x"]]]}
case("crossing/int", "HashedCrossing", dict(num_bins=5), None, CROSS,
     {"tuple": [3, "a"]})
case("crossing/big", "HashedCrossing", dict(num_bins=1000003), None, CROSS, CROSS3)
case("crossing/one_hot", "HashedCrossing", dict(num_bins=6, output_mode="one_hot"), None,
     CROSS3)
case("crossing/sparse", "HashedCrossing", dict(num_bins=6, output_mode="one_hot", sparse=True),
     None, CROSS)
