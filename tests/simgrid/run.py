#!/usr/bin/python3
"""Runs one schedule on one network in SimGrid (Debian's python3-simgrid),
set up so that SimGrid computes commlab's network model (docs/network.md,
"Checked against SimGrid"): CM02 without its latency weighting, split-duplex
links of latency 0, the route latency slept by the sender before `put`.

The topology, its links and its routes (fixed rules, and the
lexicographically smallest shortest path around broken links) are built here
from the topology id, independently of commlab's Rust code.

Input (stdin, JSON): {"topology", "bandwidth", "latency", "bandwidth2",
"latency2", "breaks": [[a, b], ...], "ops": [[rank, kind, size, peer, tag, nic], ...],
"deps": [[dependent, prerequisite, on_start], ...], "window": W}; kinds: send, recv,
calc. `nic` (default 0) and `window` (default 0: no limit) are the NIC window of
docs/network.md: each (rank, nic) holds at most W messages from a send's start until
its put returns; waiting sends take a freed place in the order they became ready, at
one time in op order (a FIFO semaphore per NIC, kept in the rank's own loop so the
rank's other ops go on while a send waits).
Output (stdout, JSON): {"finish": [ns per rank]}.
"""

import heapq
import json
import sys
from collections import deque

import simgrid
from simgrid import Actor, Comm, Engine, LinkInRoute, Mailbox, NetZone, this_actor


def topology(spec):
    """(hosts, vertices, links as [(a, b, class)], fixed route function)."""
    kind, rest = spec.split(":")
    links = []

    def join(x, y, c=0):
        links.append((min(x, y), max(x, y), c))

    if kind in ("switch", "ring"):
        h = int(rest)
        if kind == "switch":
            for i in range(h):
                join(i, h)

            def route(a, b):
                return [a, h, b]
            return h, h + 1, links, route
        count = 0 if h == 1 else 1 if h == 2 else h
        for i in range(count):
            join(i, (i + 1) % h)

        def route(a, b):
            d = (b - a) % h
            step = 1 if 2 * d <= h else -1
            path = [a]
            while path[-1] != b:
                path.append((path[-1] + step) % h)
            return path
        return h, h, links, route
    if kind in ("mesh", "torus"):
        dims = [int(x) for x in rest.split("x")] + [1]
        dims = dims[:3]
        h = dims[0] * dims[1] * dims[2]
        stride = [1, dims[0], dims[0] * dims[1]]
        wrap = kind == "torus"
        coord = lambda x, k: (x // stride[k]) % dims[k]
        for k in range(3):
            for x in range(h):
                c = coord(x, k)
                if c + 1 < dims[k]:
                    join(x, x + stride[k])
                elif wrap and dims[k] >= 3:
                    join(x, x - c * stride[k])

        def route(a, b):
            path, x = [a], a
            for k in range(3):
                n, c, t = dims[k], coord(x, k), coord(b, k)
                if wrap:
                    plus = 2 * ((t - c) % n) <= n
                else:
                    plus = t > c
                while c != t:
                    nxt = (c + 1) % n if plus else (c - 1) % n
                    x += (nxt - c) * stride[k]
                    c = nxt
                    path.append(x)
            return path
        return h, h, links, route
    if kind == "fattree":
        k, l, s = (int(x) for x in rest.split(","))
        h = k * l
        for x in range(h):
            join(x, h + x // k)
        for leaf in range(l):
            for sp in range(s):
                join(h + leaf, h + l + sp, 1)

        def route(a, b):
            la, lb = h + a // k, h + b // k
            return [a, la, b] if la == lb else [a, la, h + l + b % s, lb, b]
        return h, h + l + s, links, route
    if kind == "nodes":
        dims = [int(x) for x in rest.split("x")]
        n, g = dims[0], dims[1]
        r = dims[2] if len(dims) > 2 else g
        per = g // r  # GPUs per NIC; NIC k hangs off GPU k * per
        h = n * g
        for x in range(h):
            join(x, h + x // g)
        for x in range(h):
            if (x % g) % per == 0:
                join(x, h + n + (x % g) // per, 1)

        # A rank may sit on node k's switch (vertex h + k: NVLS, where the
        # switch reduces); it is in node k, on the rail of its peer GPU.
        def route(a, b):
            def node(v):
                return v // g if v < h else v - h
            na, nb = node(a), node(b)
            if na == nb:
                return [a, b] if a >= h or b >= h else [a, h + na, b]
            gpu = b if b < h else a if a < h else 0
            rail = (gpu % g) // per
            src, dst = na * g + rail * per, nb * g + rail * per
            path = [a]
            if a != src:
                path += [h + na, src] if a < h else [src]
            path += [h + n + rail, dst]
            if b != dst:
                path += [h + nb, b] if b < h else [b]
            return path
        return h, h + n + r, links, route
    raise ValueError(spec)


def main():
    spec = json.load(sys.stdin)
    hosts, vertices, links, fixed = topology(spec["topology"])
    broken = {(min(a, b), max(a, b)) for a, b in spec["breaks"]}
    classes = [(spec["bandwidth"], spec["latency"]), (spec["bandwidth2"], spec["latency2"])]
    neighbours = [[] for _ in range(vertices)]
    link_of = {}
    for i, (a, b, c) in enumerate(links):
        link_of[(a, b)] = i
        if (a, b) not in broken:
            neighbours[a].append(b)
            neighbours[b].append(a)
    for adj in neighbours:
        adj.sort()

    def shortest(a, b):
        dist = {b: 0}
        queue = deque([b])
        while queue:
            x = queue.popleft()
            for y in neighbours[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    queue.append(y)
        if a not in dist:
            return None
        path = [a]
        while path[-1] != b:
            x = path[-1]
            path.append(next(y for y in neighbours[x] if dist.get(y) == dist[x] - 1))
        return path

    def path(a, b):
        p = fixed(a, b)
        if any((min(x, y), max(x, y)) in broken for x, y in zip(p, p[1:])):
            return shortest(a, b)
        return p

    e = Engine([
        "commlab",
        "--cfg=network/model:CM02",
        "--cfg=network/crosstraffic:0",
        "--cfg=network/TCP-gamma:0",
        "--cfg=network/weight-S:0",
        # 1 fs: at 1e-12 s (docs/network.md §7) SimGrid rounds every
        # completion to 1 ps, and a NIC window chains hundreds of messages
        # one after the other, so the rounding adds up past 1e-6.
        "--cfg=surf/precision:1e-15",
        "--cfg=maxmin/precision:1e-12",
        "--log=root.thresh:critical",
    ])
    zone = NetZone.create_full_zone("net")
    ops = spec["ops"]
    ranks = 1 + max(op[0] for op in ops)
    # Ranks beyond the hosts are switches (nodes: rank h + k on node k's
    # switch): a host of their own at that vertex, joined by its links.
    host = [zone.create_host(f"h{i}", 1e9) for i in range(max(hosts, ranks))]
    simlinks = []
    for i, (a, b, c) in enumerate(links):
        link = zone.create_split_duplex_link(f"l{i}", classes[c][0] * 1e9)
        link.set_latency(0)
        link.seal()
        simlinks.append(link)
    latency = {}
    window = spec.get("window", 0)
    pairs = {(op[0], op[3]) for op in ops if op[1] == "send"}
    for a, b in sorted(pairs):
        p = path(a, b)
        if p is None:
            raise SystemExit(f"unreachable {a}->{b}")
        route = []
        lam = 0.0
        for x, y in zip(p, p[1:]):
            i = link_of[(min(x, y), max(x, y))]
            route.append(LinkInRoute(simlinks[i], LinkInRoute.UP if x < y else LinkInRoute.DOWN))
            lam += classes[links[i][2]][1]
        zone.add_route(host[a].netpoint, host[b].netpoint, None, None, route, False)
        latency[(a, b)] = lam
    zone.seal()

    after = [[] for _ in ops]
    waiting = [0] * len(ops)
    for dependent, prerequisite, on_start in spec["deps"]:
        after[prerequisite].append((dependent, on_start))
        waiting[dependent] += 1
    mine = [[i for i, op in enumerate(ops) if op[0] == r] for r in range(ranks)]
    finish = [0.0] * ranks

    def rank_actor(r):
        for i in mine[r]:
            if ops[i][1] == "recv":
                Mailbox.by_name(f"{ops[i][3]}-{r}-{ops[i][4]}").set_receiver(Actor.self())
        ready = deque(i for i in mine[r] if waiting[i] == 0)
        calcs = deque()
        calc = None  # (op, end time)
        comms, comm_ops = [], []
        # A send's put waits for its route's latency: (due, seq, mailbox, size).
        timers, puts = [], []
        left = len(mine[r])
        # The NIC window: places held per nic, and the sends waiting for one.
        held, waitq = {}, {}

        def release(i, on_start):
            for dependent, flag in after[i]:
                if bool(flag) == on_start:
                    waiting[dependent] -= 1
                    if waiting[dependent] == 0:
                        ready.append(dependent)

        def done(i):
            nonlocal left
            release(i, False)
            finish[r] = max(finish[r], Engine.clock * 1e9)
            left -= 1

        # Sends that wait for the rank's CPU: in LogGOPS (LogGOPSim, and
        # commlab) a send starts only on a free CPU, even with o = 0, so a
        # running calc holds it back.
        cpu_wait = deque()

        def start_send(i):
            if calc is not None and calc[1] > Engine.clock:
                cpu_wait.append(i)
                return
            _, _, size, peer, tag = ops[i][:5]
            release(i, True)
            due = Engine.clock + latency[(r, peer)] * 1e-9
            heapq.heappush(timers, (due, i, f"{r}-{peer}-{tag}", size))
            done(i)

        def finished(k):
            comms.pop(k)
            i, _ = comm_ops.pop(k)
            if ops[i][1] == "send":
                # A put returned: its flow arrived and its place frees.
                held[ops[i][5] if len(ops[i]) > 5 else 0] -= 1
            else:
                done(i)

        while left > 0 or timers:
            while ready:
                i = ready.popleft()
                _, kind, size, peer, tag = ops[i][:5]
                if kind == "send":
                    nic = ops[i][5] if len(ops[i]) > 5 else 0
                    if window == 0 or peer == r:
                        start_send(i)
                    else:
                        # Every send with a window waits for the grant at
                        # the end of the instant (below).
                        q = waitq.setdefault(nic, [])
                        at = len(q)
                        # Times equal but for rounding count as one time.
                        while at > 0 and abs(q[at - 1][0] - Engine.clock) <= 1e-9 * max(Engine.clock, 1e-9) and q[at - 1][1] > i:
                            at -= 1
                        q.insert(at, (Engine.clock, i))
                elif kind == "recv":
                    release(i, True)
                    comm, holder = Mailbox.by_name(f"{peer}-{r}-{tag}").get_async()
                    comms.append(comm)
                    comm_ops.append((i, holder))
                else:
                    calcs.append(i)
            # Everything that completes at this instant first, then the
            # NICs' free places to their waiting sends in order.
            k = Comm.test_any(comms) if comms else -1
            if k >= 0:
                finished(k)
                continue
            granted = False
            for nic, q in waitq.items():
                while q and held.get(nic, 0) < window:
                    held[nic] = held.get(nic, 0) + 1
                    start_send(q.pop(0)[1])
                    granted = True
            if granted:
                continue
            if calc is None and calcs:
                i = calcs.popleft()
                release(i, True)
                calc = (i, Engine.clock + ops[i][2] * 1e-9)
                continue
            if timers and timers[0][0] <= Engine.clock:
                _, i, name, size = heapq.heappop(timers)
                put = Mailbox.by_name(name).put_async(size, size)
                if window == 0:
                    puts.append(put)
                else:
                    comms.append(put)
                    comm_ops.append((i, None))
                continue
            if left == 0 and not timers:
                break
            due = [t for t in (calc[1] if calc else None, timers[0][0] if timers else None) if t is not None]
            if due:
                wait = max(min(due) - Engine.clock, 0.0)
                k = Comm.wait_any_for(comms, wait) if comms else (this_actor.sleep_for(wait) or -1)
                if k < 0:
                    if calc is not None and calc[1] <= Engine.clock:
                        i, calc = calc[0], None
                        done(i)
                        while cpu_wait:
                            start_send(cpu_wait.popleft())
                    continue
            else:
                k = Comm.wait_any(comms)
            finished(k)
        rest = puts + [c for c, (i, _) in zip(comms, comm_ops) if ops[i][1] == "send"]
        if rest:
            Comm.wait_all(rest)

    for r in range(ranks):
        Actor.create(f"r{r}", host[r], rank_actor, r)
    e.run()
    print(json.dumps({"finish": finish}))


main()
