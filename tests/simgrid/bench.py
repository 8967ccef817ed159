#!/usr/bin/python3
"""Times commlab and SimGrid on the same schedule and network, in one run
(BENCHMARKS.md, "Networks"): `bench.py COMMLAB GOAL TOPOLOGY`.

The GOAL file is read here (the subset `commlab goal gen` writes: send, recv,
calc, requires, irequires), turned into run.py's input with the default link
classes (25 B/ns, 250 ns; nodes 450/100 and 50/500), and run by run.py under
SimGrid. commlab runs the same file with `net sim`. Both times are wall clock
from the file to the finish times, and both max finish times are printed.
"""

import json
import re
import subprocess
import sys
import time

commlab, goal, topology = sys.argv[1:4]
ops, deps, labels = [], [], {}
rank = None
for line in open(goal):
    line = line.strip()
    if line.startswith("rank "):
        rank = int(line.split()[1])
        labels = {}
        continue
    m = re.match(r"(\w+): (send|recv) (\d+)b (?:to|from) (\d+)(?: tag (\d+))?", line)
    if m:
        labels[m[1]] = len(ops)
        ops.append([rank, m[2], int(m[3]), int(m[4]), int(m[5] or 0)])
        continue
    m = re.match(r"(\w+): calc (\d+)", line)
    if m:
        labels[m[1]] = len(ops)
        ops.append([rank, "calc", int(m[2]), 0, 0])
        continue
    m = re.match(r"(\w+) (i?)requires (\w+)", line)
    if m:
        deps.append([labels[m[1]], labels[m[3]], m[2] == "i"])
nodes = topology.startswith("nodes:")
spec = {
    "topology": topology,
    "bandwidth": 450.0 if nodes else 25.0, "latency": 100.0 if nodes else 250.0,
    "bandwidth2": 50.0 if nodes else 25.0, "latency2": 500.0 if nodes else 250.0,
    "breaks": [], "ops": ops, "deps": deps,
}
run = __file__.replace("bench.py", "run.py")
started = time.time()
out = subprocess.run(["/usr/bin/python3", run], input=json.dumps(spec), capture_output=True, text=True, check=True)
simgrid_s = time.time() - started
simgrid_max = max(json.loads(out.stdout)["finish"])
started = time.time()
ours = json.loads(subprocess.run([commlab, "net", "sim", goal, "--topology", topology, "--json"],
                                 capture_output=True, text=True, check=True).stdout)
commlab_s = time.time() - started
print(json.dumps({
    "topology": topology, "ops": len(ops),
    "simgrid_s": round(simgrid_s, 3), "commlab_s": round(commlab_s, 3),
    "commlab_sim_s": ours["seconds"],
    "speedup": round(simgrid_s / commlab_s, 1),
    "simgrid_max_ns": simgrid_max, "commlab_max_ns": ours["max_time"],
    "relative_difference": abs(simgrid_max - ours["max_time"]) / ours["max_time"],
}))
