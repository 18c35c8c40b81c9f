"""tf.image bounding boxes: non-max suppression and drawing."""
import numpy as np

from tensorlet import dtypes as _dt
from tensorlet.ops import array_ops as _a
from tensorlet.ops import math_ops as _m
from tensorlet.ops.image_ops import CropAndResize, DrawBoundingBoxesV2, NonMaxSuppressionV3
from tensorlet.ops.registry import execute
from tensorlet.tensor import convert_to_tensor


def _nms(boxes, scores, max_output_size, iou_threshold, score_threshold):
  b = convert_to_tensor(boxes)
  s = convert_to_tensor(scores)
  if b.dtype is not s.dtype:
    s = _m.cast(s, b.dtype)
  mo = _m.cast(convert_to_tensor(max_output_size), _dt.int32)
  iou = _m.cast(convert_to_tensor(iou_threshold), b.dtype)
  st = _m.cast(convert_to_tensor(score_threshold), b.dtype)
  return execute(NonMaxSuppressionV3, [b, s, mo, iou, st], {}), s


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
  """Indices (int32) of at most `max_output_size` boxes, greedily by score, dropping boxes
  whose IoU with a kept one exceeds `iou_threshold` and scores <= `score_threshold`."""
  return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold)[0]


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
  """(indices, their scores); soft-NMS (sigma > 0) is not implemented in tensorlet."""
  if soft_nms_sigma != 0.0:
    raise NotImplementedError("soft_nms_sigma > 0 (Soft-NMS) is not implemented in tensorlet")
  idx, s = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold)
  return idx, _a.gather(s, idx)


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
  """(indices, number valid); with pad_to_max_output_size the indices are zero-padded."""
  b = convert_to_tensor(boxes)
  if b.shape.rank is not None and b.shape.rank != 2:
    raise NotImplementedError("batched non_max_suppression_padded is not implemented in "
                              "tensorlet")
  idx = non_max_suppression(boxes, scores, max_output_size, iou_threshold, score_threshold)
  n = _a.size(idx)
  if pad_to_max_output_size:
    idx = _a.concat([idx, _a.zeros(_a.stack([int(max_output_size) - n]), _dt.int32)], 0)
  return idx, n


def draw_bounding_boxes(images, boxes, colors, name=None):
  """Draws box outlines ([y_min, x_min, y_max, x_max] in [0, 1]) on float images."""
  x = convert_to_tensor(images)
  b = _m.cast(convert_to_tensor(boxes), _dt.float32)
  c = convert_to_tensor(np.zeros([0, 4], np.float32) if colors is None else colors,
                        _dt.float32)
  return execute(DrawBoundingBoxesV2, [x, b, c], {})


def crop_and_resize_op(image, boxes, box_indices, crop_size, method="bilinear",
                       extrapolation_value=0.0):
  """The CropAndResize op (float64 images stay float64; crop_and_resize gives float32)."""
  x = convert_to_tensor(image)
  b = convert_to_tensor(boxes)
  if b.dtype is not _dt.float32 and b.dtype is not _dt.float64:
    b = _m.cast(b, _dt.float32)
  bi = _m.cast(convert_to_tensor(box_indices), _dt.int32)
  size = _m.cast(convert_to_tensor(crop_size), _dt.int32)
  if method not in ("bilinear", "nearest"):
    raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
  if x.shape.rank is not None and x.shape.rank != 4:
    raise ValueError(f"input image must be 4-D, got shape {x.shape}")
  return execute(CropAndResize, [x, b, bi, size], {"method": method,
                                                   "extrapolation_value": float(
                                                       extrapolation_value)})


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
  """Crops boxes ([y1, x1, y2, x2], normalised) of batch images `box_indices` and resizes
  each to `crop_size` (TF's corner-aligned sampling; outside samples get
  `extrapolation_value`). float32 result; differentiable in image and boxes."""
  out = crop_and_resize_op(image, boxes, box_indices, crop_size, method, extrapolation_value)
  return out if out.dtype is _dt.float32 else _m.cast(out, _dt.float32)
