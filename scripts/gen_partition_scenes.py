#!/usr/bin/env python3
"""Writes refimages/json/bsp_depth_off.json and refimages/json/portals_level.json.

bsp_depth_off: the book's TestBspNode (book-advanced §1.6, seed 001 L17515ff). Four vertical
planes through the 2D segments V0V1, V2V3, V6V7, V4V5 (V0=(-1,1) V1=(1,-1) V2=(-1/4,1/4)
V3=(-1,-1) V4=(0,0) V5=(1,1/2) V6=(-3/4,-3/4) V7=(-3/4,3/4)), normal (dy, -dx) of each
segment [inference: Figure 8.3 is not in the OCR]; tree as the book's listing: Bsp0 {+ Bsp1,
= Plane0, - Bsp2}, Bsp1 {+ Bsp3, = Plane1, - Tetrahedron}, Bsp3 {+ Torus, = Plane3, - Sphere},
Bsp2 {+ Cube, = Plane2, - Octahedron}. z is up. Depth buffer off at the root, on for the torus.

portals_level: the book's TestPortals level (§1.7, L17800ff): 13 rooms between z=0 and z=2,
bounded by the planes of Table 8.1, under the BSP tree of the book's listing; one doorway
portal each way through every shared wall.
"""
import json, math, os, re

OUT = os.path.join(os.path.dirname(__file__), "..", "refimages", "json")


def r(x):
    x = round(x, 6)
    return int(x) if x == int(x) else x


def quad(a, b, c, d, n):
    """A quad facing `n` (front faces counter-clockwise seen from the side `n` points to)."""
    u = [b[k] - a[k] for k in range(3)]
    v = [c[k] - a[k] for k in range(3)]
    f = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
    front = sum(f[k] * n[k] for k in range(3)) > 0
    return {"positions": [[r(v) for v in p] for p in (a, b, c, d)],
            "normals": [[r(v) for v in n]] * 4,
            "indices": [0, 1, 2, 0, 2, 3] if front else [0, 2, 1, 0, 3, 2]}


def merge(quads):
    pos, nor, idx = [], [], []
    for q in quads:
        base = len(pos)
        pos += q["positions"]
        nor += q["normals"]
        idx += [base + i for i in q["indices"]]
    return {"inline": {"positions": pos, "normals": nor, "indices": idx}}


def mat(rgb, k=1.0):
    return {"material": {"ambient": [r(c * 0.5) for c in rgb] + [1],
                         "diffuse": [r(c * k) for c in rgb] + [1]}}

# ---------------------------------------------------------------- BSP sample
def bsp_scene():
    V = {0: (-1, 1), 1: (1, -1), 2: (-0.25, 0.25), 3: (-1, -1), 4: (0, 0), 5: (1, 0.5),
         6: (-0.75, -0.75), 7: (-0.75, 0.75)}

    def plane_of(a, b):
        (ax, ay), (bx, by) = V[a], V[b]
        n = (by - ay, -(bx - ax), 0)
        return {"normal": [r(n[0]), r(n[1]), 0], "constant": r(n[0] * ax + n[1] * ay)}

    def wire(name, a, b, rgb):
        (ax, ay), (bx, by) = V[a], V[b]
        h = 0.8
        return {"name": name,
                "states": {"wireframe": {"enabled": True}, "cull": {"enabled": False},
                           "material": {"emissive": rgb + [1], "diffuse": [0, 0, 0, 1],
                                        "ambient": [0, 0, 0, 1]}},
                "mesh": {"inline": {"positions": [[ax, ay, 0], [bx, by, 0], [bx, by, h], [ax, ay, h]],
                                    "indices": [0, 1, 2, 0, 2, 3]}}}

    def solid(name, verts, faces, at, rgb):
        pos, nor, idx = [], [], []
        for f in faces:
            a, b, c = (verts[i] for i in f)
            u = [b[k] - a[k] for k in range(3)]
            v = [c[k] - a[k] for k in range(3)]
            n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
            ln = math.sqrt(sum(x * x for x in n))
            for p in (a, b, c):
                pos.append([r(x) for x in p])
                nor.append([r(x / ln) for x in n])
            idx += [len(pos) - 3, len(pos) - 2, len(pos) - 1]
        return {"name": name, "transform": {"translation": at}, "states": mat(rgb),
                "mesh": {"inline": {"positions": pos, "normals": nor, "indices": idx}}}

    s = 0.32
    tet_v = [(s, s, s), (s, -s, -s), (-s, s, -s), (-s, -s, s)]
    tet_f = [(0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2)]
    o = 0.36
    oct_v = [(o, 0, 0), (-o, 0, 0), (0, o, 0), (0, -o, 0), (0, 0, o), (0, 0, -o)]
    oct_f = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
    torus = {"name": "Torus", "transform": {"translation": [-0.55, 0.15, 0.06],
                                              "rotation": {"axis": [1, 0, 0], "degrees": 90}},
             "states": {**mat([0.9, 0.8, 0.2]), "zbuffer": {"enabled": True, "writable": True}},
             "mesh": {"torus": {"major": 0.12, "minor": 0.05}}}
    sphere = {"name": "Sphere", "transform": {"translation": [-1.3, 0.3, 0.3]},
              "states": mat([0.2, 0.5, 1.0]), "mesh": {"sphere": {"radius": 0.3}}}
    cube = {"name": "Cube", "transform": {"translation": [1.0, -0.1, 0.22]},
            "states": mat([1.0, 0.35, 0.2]), "mesh": {"box": {"size": [0.44, 0.44, 0.44]}}}
    bsp3 = {"name": "Bsp3", "kind": "bsp", "bsp": plane_of(6, 7),
            "children": [torus, wire("Plane3", 6, 7, [0.1, 0.1, 0.1]), sphere]}
    bsp1 = {"name": "Bsp1", "kind": "bsp", "bsp": plane_of(2, 3),
            "children": [bsp3, wire("Plane1", 2, 3, [0, 0.5, 0]),
                         solid("Tetrahedron", tet_v, tet_f, [0.2, -1.0, 0.32], [0.3, 0.9, 0.3])]}
    bsp2 = {"name": "Bsp2", "kind": "bsp", "bsp": plane_of(4, 5),
            "children": [cube, wire("Plane2", 4, 5, [0, 0, 1]),
                         solid("Octahedron", oct_v, oct_f, [0.2, 0.9, 0.36], [0.8, 0.3, 0.9])]}
    bsp0 = {"name": "Bsp0", "kind": "bsp", "bsp": plane_of(0, 1),
            "children": [bsp1, wire("Plane0", 0, 1, [1, 0, 0]), bsp2]}
    ground = {"name": "Ground", "transform": {"rotation": {"axis": [1, 0, 0], "degrees": 90}},
              "states": mat([0.55, 0.5, 0.45]), "mesh": {"plane": {"size": 3.2}}}
    return {
        "format": "plumb-scene", "version": 1, "background": [0.55, 0.7, 0.85, 1],
        "lights": [{"name": "fill", "type": "ambient", "ambient": [0.35, 0.35, 0.35, 1]},
                   {"name": "sun", "type": "directional", "direction": [0.3, 0.6, -1]}],
        "cameras": [{"name": "main", "eye": [-2.2, -2.9, 1.7], "target": [0.05, -0.1, 0.2],
                     "up": [0, 0, 1], "fov_y_degrees": 45}],
        "root": {"name": "Scene", "lights": ["fill", "sun"],
                 "states": {"zbuffer": {"enabled": False, "writable": False}},
                 "children": [ground, bsp0]},
    }

# ------------------------------------------------------------- portal level
ROOMS = {  # name: polygon (CCW, seen from above), room colour
    "C00": [(-1, -1), (1, -1), (1, 1), (-1, 1)],
    "C20": [(1, -1), (3, -1), (3, 1), (1, 1)],
    "C40": [(3, -1), (5, -1), (5, 1), (3, 1)],
    "Cm20": [(-3, -1), (-1, -1), (-1, 1), (-3, 1)],
    "Cm40": [(-5, -1), (-3, -1), (-3, 1), (-5, 1)],
    "C02": [(-1, 1), (1, 1), (1, 3), (-1, 3)],
    "C04": [(-1, 3), (1, 3), (1, 5), (-1, 5)],
    "C0m2": [(-1, -3), (1, -3), (1, -1), (-1, -1)],
    "C0m4": [(-1, -5), (1, -5), (1, -3), (-1, -3)],
    "Dpp": [(3, 1), (5, 1), (1, 5), (1, 3)],
    "Dpm": [(1, -3), (1, -5), (5, -1), (3, -1)],
    "Dmp": [(-3, 1), (-1, 3), (-1, 5), (-5, 1)],
    "Dmm": [(-1, -3), (-3, -1), (-5, -1), (-1, -5)],
}
COLOURS = {
    "C00": [0.9, 0.9, 0.85], "C20": [0.95, 0.45, 0.35], "C40": [0.95, 0.8, 0.3],
    "Cm20": [0.4, 0.75, 0.95], "Cm40": [0.55, 0.45, 0.95], "C02": [0.45, 0.9, 0.45],
    "C04": [0.3, 0.7, 0.6], "C0m2": [0.95, 0.55, 0.8], "C0m4": [0.7, 0.5, 0.35],
    "Dpp": [0.8, 0.95, 0.4], "Dpm": [0.95, 0.6, 0.2], "Dmp": [0.35, 0.55, 0.75],
    "Dmm": [0.75, 0.35, 0.55],
}
DOOR_W, DOOR_H, H = 0.8, 1.4, 2.0


def ccw(poly):
    a = sum(poly[i][0] * poly[(i + 1) % len(poly)][1] - poly[(i + 1) % len(poly)][0] * poly[i][1]
            for i in range(len(poly)))
    return poly if a > 0 else poly[::-1]


def shared(p, q):
    """The wall segment two rooms share (same endpoints, opposite direction), or None."""
    for i in range(len(p)):
        a, b = p[i], p[(i + 1) % len(p)]
        for j in range(len(q)):
            c, d = q[j], q[(j + 1) % len(q)]
            if (a, b) == (d, c):
                return i
    return None


def room(name, neighbours):
    poly = ccw(ROOMS[name])
    rgb = COLOURS[name]
    walls, portals = [], []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        dx, dy = b[0] - a[0], b[1] - a[1]
        ln = math.hypot(dx, dy)
        inward = (-dy / ln, dx / ln, 0)
        P = lambda t, z: (a[0] + dx * t, a[1] + dy * t, z)
        to = next((n for n in neighbours if shared(poly, ccw(ROOMS[n])) == i), None)
        if to is None:
            walls.append(quad(P(0, 0), P(1, 0), P(1, H), P(0, H), inward))
            continue
        t0, t1 = 0.5 - DOOR_W / (2 * ln), 0.5 + DOOR_W / (2 * ln)
        walls.append(quad(P(0, 0), P(t0, 0), P(t0, H), P(0, H), inward))
        walls.append(quad(P(t1, 0), P(1, 0), P(1, H), P(t1, H), inward))
        walls.append(quad(P(t0, DOOR_H), P(t1, DOOR_H), P(t1, H), P(t0, H), inward))
        door = [P(t0, 0), P(t1, 0), P(t1, DOOR_H), P(t0, DOOR_H)]
        # Counter-clockwise seen from inside: the polygon's normal points back into the room.
        nx = sum((door[k][1] - door[(k + 1) % 4][1]) * (door[k][2] + door[(k + 1) % 4][2]) for k in range(4))
        ny = sum((door[k][2] - door[(k + 1) % 4][2]) * (door[k][0] + door[(k + 1) % 4][0]) for k in range(4))
        if nx * inward[0] + ny * inward[1] < 0:
            door = door[::-1]
        portals.append({"vertices": [[r(v) for v in p] for p in door], "to": to})
    fan = [(p[0], p[1]) for p in poly]
    floor_pos = [[r(x), r(y), 0] for x, y in fan]
    ceil_pos = [[r(x), r(y), H] for x, y in fan]
    n = len(fan)
    floor = {"inline": {"positions": floor_pos, "normals": [[0, 0, 1]] * n,
                        "indices": [k for t in range(1, n - 1) for k in (0, t, t + 1)]}}
    ceil = {"inline": {"positions": ceil_pos, "normals": [[0, 0, -1]] * n,
                       "indices": [k for t in range(1, n - 1) for k in (0, t + 1, t)]}}
    cx = sum(x for x, _ in fan) / n
    cy = sum(y for _, y in fan) / n
    children = [
        {"name": name + "_walls", "states": mat(rgb, 0.8), "mesh": merge(walls)},
        {"name": name + "_floor", "states": mat([0.35, 0.33, 0.3]), "mesh": floor},
        {"name": name + "_ceiling", "states": mat([0.95, 0.95, 1.0]), "mesh": ceil},
        {"name": name + "_pillar", "transform": {"translation": [r(cx), r(cy), 0.4]},
         "states": mat([c * 0.6 for c in rgb]), "mesh": {"box": {"size": [0.3, 0.3, 0.8]}}},
    ]
    return {"name": name, "kind": "region", "portals": portals, "children": children}


def portal_scene():
    names = list(ROOMS)
    adj = {n: [m for m in names if m != n and shared(ccw(ROOMS[n]), ccw(ROOMS[m])) is not None]
           for n in names}
    R = {n: room(n, adj[n]) for n in names}

    def bsp(name, normal, c, pos, neg):
        ch, sides = [], []
        for node, side in ((pos, "positive"), (neg, "negative")):
            if node is not None:
                ch.append(node)
                sides.append(side)
        d = {"normal": normal, "constant": c}
        if sides != ["positive", "coplanar", "negative"][:len(sides)]:
            d["sides"] = sides
        return {"name": name, "kind": "bsp", "bsp": d, "children": ch}

    # The book's tree; `None` is an "outside" leaf (solid, nothing to draw).
    RRLL = bsp("BSP:RRLL", [1, 1, 0], 4, bsp("BSP:RRLLL", [1, 1, 0], 6, None, R["Dpp"]), None)
    RRLRL = bsp("BSP:RRLRL", [1, -1, 0], 4, bsp("BSP:RRLRLL", [1, -1, 0], 6, None, R["Dpm"]), None)
    RRLRR = bsp("BSP:RRLRR", [1, 0, 0], 3, bsp("BSP:RRLRRL", [1, 0, 0], 5, None, R["C40"]), R["C20"])
    RRL = bsp("BSP:RRL", [0, 1, 0], 1, RRLL, bsp("BSP:RRLR", [0, -1, 0], 1, RRLRL, RRLRR))
    RRRLL = bsp("BSP:RRRLL", [-1, 1, 0], 4, bsp("BSP:RRRLLL", [-1, 1, 0], 6, None, R["Dmp"]), None)
    RRRLRL = bsp("BSP:RRRLRL", [-1, -1, 0], 4,
                 bsp("BSP:RRRLRLL", [-1, -1, 0], 6, None, R["Dmm"]), None)
    RRRLRR = bsp("BSP:RRRLRR", [-1, 0, 0], 3,
                 bsp("BSP:RRRLRRL", [-1, 0, 0], 5, None, R["Cm40"]), R["Cm20"])
    RRRL = bsp("BSP:RRRL", [0, 1, 0], 1, RRRLL, bsp("BSP:RRRLR", [0, -1, 0], 1, RRRLRL, RRRLRR))
    RRRRL = bsp("BSP:RRRRL", [0, 1, 0], 3, bsp("BSP:RRRRLL", [0, 1, 0], 5, None, R["C04"]), R["C02"])
    RRRRR = bsp("BSP:RRRRR", [0, -1, 0], 1,
                bsp("BSP:RRRRRL", [0, -1, 0], 3,
                    bsp("BSP:RRRRRLL", [0, -1, 0], 5, None, R["C0m4"]), R["C0m2"]), R["C00"])
    RRR = bsp("BSP:RRR", [-1, 0, 0], 1, RRRL, bsp("BSP:RRRR", [0, 1, 0], 1, RRRRL, RRRRR))
    RR = bsp("BSP:RR", [1, 0, 0], 1, RRL, RRR)
    Rn = bsp("BSP:R", [0, 0, 1], 2, None, RR)
    outside = {"name": "outside", "children": [
        {"name": "lawn", "transform": {"translation": [0, 0, -0.01],
                                       "rotation": {"axis": [1, 0, 0], "degrees": 90}},
         "states": mat([0.3, 0.6, 0.25]), "mesh": {"plane": {"size": 14}}}]}
    crm = {"name": "CRM", "kind": "region_manager",
           "bsp": {"normal": [0, 0, -1], "constant": 0, "sides": ["coplanar", "negative"]},
           "children": [outside, Rn]}
    return {
        "format": "plumb-scene", "version": 1, "background": [0.1, 0.1, 0.15, 1],
        "lights": [{"name": "fill", "type": "ambient", "ambient": [0.45, 0.45, 0.45, 1]},
                   {"name": "sun", "type": "directional", "direction": [0.35, 0.6, -0.7]}],
        "cameras": [{"name": "main", "eye": [-0.75, -0.7, 1.0], "target": [1.5, 0.9, 0.8],
                     "up": [0, 0, 1], "fov_y_degrees": 70}],
        "root": {"name": "level", "lights": ["fill", "sun"], "children": [crm]},
    }


def dump(doc, name):
    text = json.dumps(doc, indent=1)
    # Number arrays on one line.
    for _ in range(2):
        text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]",
                      lambda m: "[" + re.sub(r"\s+", " ", m.group(1)) + "]", text)
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    dump(bsp_scene(), "bsp_depth_off.json")
    dump(portal_scene(), "portals_level.json")
