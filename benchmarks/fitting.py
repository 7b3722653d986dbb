"""A class-balanced, L2-regularised logistic regression fitted by full-batch gradient descent (numpy only),
for the training commands that ship weights in the package (disclosure, knowledge relevance)."""
from __future__ import annotations

import numpy as np


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float, steps: int = 3000,
                 lr: float = 0.5) -> tuple[np.ndarray, float]:
    """Weights and bias for standardised features ``x`` and 0/1 labels ``y``; both classes weigh the same."""
    w, b = np.zeros(x.shape[1], dtype=np.float64), 0.0
    positive = max(1.0, y.sum())
    weights = np.where(y == 1, len(y) / (2 * positive), len(y) / (2 * max(1.0, len(y) - positive)))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w + b, -30, 30)))
        g = (p - y) * weights
        w -= lr * (x.T @ g / len(y) + l2 * w)
        b -= lr * float(g.mean())
    return w, b
