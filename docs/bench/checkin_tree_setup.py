# Builds, over REST, a flat objective and a 301-objective tree (1+6+42+252),
# 16 key results on the flat objective and on one leaf; prints their ids.
import json, sys, urllib.request
base, token, account = sys.argv[1], sys.argv[2], sys.argv[3]
H = {"Authorization": "Bearer " + token, "service-accountId": account, "Content-Type": "application/json"}
def post(path, body):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=H, method="POST")
    with urllib.request.urlopen(req) as r:
        return json.load(r)
ss = post("/api/v1/sessions", {"title": "Q1", "start": "2026-01-01", "end": "2026-03-31"})["id"]
modes = ["average_kr", "average_children", "average_kr_and_children"]
n = [0]
def goal(parent):
    g = post("/api/v1/goals", {"name": "g%d" % n[0], "sessionId": ss, "parentId": parent, "attainmentTypeString": modes[n[0] % 3]})["id"]
    n[0] += 1
    return g
def krs(g, k):
    return [post("/api/v1/metrics", {"name": "kr%d" % i, "goalId": g, "target": 100})["id"] for i in range(k)]
flat = goal("")
flat_krs = krs(flat, 16)
leaf = None
def tree(parent, level, fan):
    global leaf
    g = goal(parent)
    krs(g, 1)
    leaf = g
    if level < len(fan):
        for _ in range(fan[level]):
            tree(g, level + 1, fan)
tree("", 0, [6, 7, 6])
leaf_krs = krs(leaf, 16)
print(json.dumps({"objectives_in_tree": n[0] - 1, "flat": flat_krs, "tree": leaf_krs}))
