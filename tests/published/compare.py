#!/usr/bin/env python3
"""`commlab predict` against published nccl-tests runs (tests/data/published,
each file's header names its source and system): per file, the matching
preset and node count, the error of the predicted time from 1 KiB to 1 MiB
and of the predicted busbw from 64 MiB up. A report, not a pass/fail check:
the numbers go to docs/systems.md. No constant of commlab comes from these
files. Run after `cargo build --release -p commlab-cli` (or set COMMLAB);
ENGINE=steady compares `predict --engine steady` instead of the flow engine.
"""
import json
import os
import re
import subprocess
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
C = os.environ.get("COMMLAB", os.path.join(ROOT, "target", "release", "commlab"))
ENGINE = os.environ.get("ENGINE", "flow")
R = os.path.join(ROOT, "tests", "data", "published") + "/"
cases = [
 ("nccl-tests_dell-xe9680-h100-2nodes-x8gpu-8xcx7-ndr400_all_reduce.txt", "dgx-h100", 2, "allreduce"),
 ("nccl-tests_aws-p4de-a100-2nodes-x8gpu-efa400_all_reduce.txt", "p4d", 2, "allreduce"),
 ("nccl-tests_aws-p5-h100-1node-x8gpu-batch_all_reduce.txt", "p5", 1, "allreduce"),
 ("nccl-tests_cscs-alps-gh200-2nodes-x4gpu-slingshot_all_reduce.txt", "gh200-slingshot", 2, "allreduce"),
 ("nccl-tests_gcp-a3ultra-h200-2nodes-x8gpu-gke_all_gather.txt", "hgx-h200", 2, "allgather"),
]
for f, sysid, nodes, coll in cases:
    rows = []
    # The NCCL version the header states as printed by the run (else the
    # current release): NCCL prints "NCCL version 2.X.Y".
    stated = re.search(r'NCCL version (2\.\d+\.\d+)', open(R + f).read())
    version = stated.group(1) if stated else "current"
    for line in open(R + f):
        line = re.sub(r'^\s*(\[\d+,\d+\]<stdout>:|\d+:)\s*', '', line)
        if line.lstrip().startswith('#'): continue
        t = line.split()
        if len(t) >= 8 and t[0].isdigit() and t[1].isdigit():
            rows.append((int(t[0]), float(t[5]), float(t[7])))
    sizes = ",".join(str(b) for b, _, _ in rows)
    v = json.loads(subprocess.check_output([C, "predict", "--system", sysid, "--nodes", str(nodes), "--collective", coll, "--bytes", sizes, "--nccl-version", version, "--engine", ENGINE, "--json"]))
    worst_t, worst_b = 0, 0
    print(f"== {f} ({sysid} x {nodes}, {v['system']['nccl']['version']})")
    for (b, t, bb), r in zip(rows, v["rows"]):
        et = r["time_us"] / t - 1
        eb = (r["busbw"] / bb - 1) if bb > 0 else float('nan')
        nm = r["nccl_model_time_us"]
        if b >= 64 << 20 or (1024 <= b <= 1 << 20):
            flag = ""
            if b >= 64 << 20: worst_b = max(worst_b, abs(eb)); flag = "B"
            else: worst_t = max(worst_t, abs(et)); flag = "T"
            print(f"{b:>12} meas {t:>9.1f}us {bb:>7.1f}  ours {r['time_us']:>9.1f}us {r['busbw']:>7.1f} ({et:+.0%} t, {eb:+.0%} bw) nccl-model {nm if nm is None else round(nm,1)} {r['algorithm']}/{r['protocol']} {r['engine']} {flag}")
    print(f"   worst time error 1K-1M: {worst_t:.0%}; worst busbw error >=64M: {worst_b:.0%}")
