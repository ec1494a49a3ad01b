"""Sizes, inputs and tolerances shared by every folder of tests/fixtures/models."""
import os

import torch

OUT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "fixtures", "models")
DEBIAN_VERSION = "1.13.1+dfsg-4"

D, NUM_HEADS, INTERMEDIATE, NUM_LAYERS, MAX_POSITIONS = 32, 4, 64, 2, 64
DK = D // NUM_HEADS
TOLERANCE = {"attentionAbs": 1e-5, "hiddenRel": 1e-4, "hiddenAbs": 1e-5}
F64 = torch.float64

SENTENCE = "用毒毒毒蛇，毒蛇会不会被毒毒死"
SENTENCE_2 = "蛇会被毒死吗？"
