import json
import math
import statistics
from collections import Counter, defaultdict

import numpy as np
import pandas as pd

def load_rows(text):
    rows = [line.split(",") for line in text.strip().splitlines()]
    header, body = rows[0], rows[1:]
    return [dict(zip(header, r)) for r in body]

def summarize(values):
    values = sorted(float(v) for v in values)
    return {
        "n": len(values),
        "mean": statistics.mean(values),
        "median": statistics.median(values),
        "stdev": statistics.pstdev(values),
        "p90": values[int(0.9 * (len(values) - 1))],
    }

data = "city,temp\nOslo,3.5\nLima,19.0\nCairo,27.1\nOslo,4.0\nLima,18.2\n"
rows = load_rows(data)
by_city = defaultdict(list)
for row in rows:
    by_city[row["city"]].append(row["temp"])
report = {city: summarize(v) for city, v in by_city.items()}
print(json.dumps(report, indent=2))

df = pd.DataFrame({"x": np.arange(100), "y": np.sin(np.arange(100) / 10)})
df["z"] = df["x"] * df["y"]
print(df.describe())
counts = Counter(word.lower() for word in "the quick brown fox jumps over the lazy dog the end".split())
print(counts.most_common(3), math.sqrt(sum(c * c for c in counts.values())))
