#!/usr/bin/env python3
"""plumb-gl: the conformance kit's OpenGL backend.

Replays a plumb draw trace (docs/draw-traces.md) through OpenGL 1.x fixed-function calls on a
headless OSMesa context and writes the image as a PNG, so that `plumb conform --exec` can hold
a GL driver to plumb's goldens. Scene and model cases are first recorded as a trace by
`plumb render --trace-out`. Needs Python 3, numpy and PyOpenGL >= 3.1.10 on Mesa's
libOSMesa (Debian: libosmesa6); no compiled code of its own.

    plumb_gl.py [--plumb PLUMB] INPUT OUTPUT WIDTH HEIGHT [KIND [VIEW]]
    plumb_gl.py --caps                  # the features it draws, as JSON

Exit status: 0 drawn; 77 a state GL 1.x cannot express ("unsupported: FEATURE" as the last
line of stderr, one line per draw before it naming each such state); 1 anything else.

Conventions: plumb's clip space has depth 0..1 and its window origin is the top-left
corner. GL 1.x has neither, so the one call beyond GL 1.x is `glClipControl(GL_UPPER_LEFT,
GL_ZERO_TO_ONE)` (ARB_clip_control, core in GL 4.5): the same depth values, and window row 0
is the image's top row, so viewports, scissors and read-back need no flipping. Flat shading
takes the first vertex (`glProvokingVertex`, ARB_provoking_vertex), as plumb does.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

UNSUPPORTED = 77

# The kit's feature names (plumb::conform::FEATURES) this backend cannot draw.
LACKS = [
    "pbr",
    "per_pixel_lighting",
    "light_range",
    "spot_inner_cone",
    "spot_cutoff_over_90",
    "spot_exponent_over_128",
    "shininess_over_128",
    "combine_scale",
    "dot3_alpha",
]


class Unsupported(Exception):
    """A state GL 1.x cannot express: (feature, detail)."""


class Bad(Exception):
    """Input this backend cannot read."""


# ---------------------------------------------------------------------------------------
# Reading the trace


class Trace:
    def __init__(self, path):
        import numpy as np

        self.np = np
        with open(path, "rb") as f:
            try:
                self.doc = json.load(f)
            except ValueError as e:
                raise Bad(f"{path}: not JSON: {e}")
        if self.doc.get("format") != "plumb-draws" or self.doc.get("version") != 1:
            raise Bad(f"{path}: not a plumb-draws version 1 trace")
        buf = self.doc["buffer"]
        if os.path.basename(buf) != buf:
            raise Bad(f"{path}: buffer {buf!r} must be a file name beside the JSON")
        with open(os.path.join(os.path.dirname(os.path.abspath(path)), buf), "rb") as f:
            self.buffer = f.read()

    def view(self, v, dtype, width):
        np = self.np
        size = np.dtype(dtype).itemsize * width
        end = v["offset"] + v["count"] * size
        if end > len(self.buffer):
            raise Bad(f"view {v} runs past the buffer ({len(self.buffer)} bytes)")
        a = np.frombuffer(self.buffer, dtype=dtype, count=v["count"] * width, offset=v["offset"])
        return a.reshape(v["count"], width) if width > 1 else a


# ---------------------------------------------------------------------------------------
# GL enums for plumb's names


def enums(GL):
    compare = {
        "never": GL.GL_NEVER, "less": GL.GL_LESS, "equal": GL.GL_EQUAL,
        "less_equal": GL.GL_LEQUAL, "greater": GL.GL_GREATER,
        "not_equal": GL.GL_NOTEQUAL, "greater_equal": GL.GL_GEQUAL, "always": GL.GL_ALWAYS,
    }
    stencil_op = {
        "keep": GL.GL_KEEP, "zero": GL.GL_ZERO, "replace": GL.GL_REPLACE,
        "incr": GL.GL_INCR, "decr": GL.GL_DECR, "invert": GL.GL_INVERT,
        "incr_wrap": GL.GL_INCR_WRAP, "decr_wrap": GL.GL_DECR_WRAP,
    }
    factor = {
        "zero": GL.GL_ZERO, "one": GL.GL_ONE, "src_color": GL.GL_SRC_COLOR,
        "one_minus_src_color": GL.GL_ONE_MINUS_SRC_COLOR, "dst_color": GL.GL_DST_COLOR,
        "one_minus_dst_color": GL.GL_ONE_MINUS_DST_COLOR, "src_alpha": GL.GL_SRC_ALPHA,
        "one_minus_src_alpha": GL.GL_ONE_MINUS_SRC_ALPHA, "dst_alpha": GL.GL_DST_ALPHA,
        "one_minus_dst_alpha": GL.GL_ONE_MINUS_DST_ALPHA,
        "constant_color": GL.GL_CONSTANT_COLOR,
        "one_minus_constant_color": GL.GL_ONE_MINUS_CONSTANT_COLOR,
        "constant_alpha": GL.GL_CONSTANT_ALPHA,
        "one_minus_constant_alpha": GL.GL_ONE_MINUS_CONSTANT_ALPHA,
        "src_alpha_saturate": GL.GL_SRC_ALPHA_SATURATE,
    }
    equation = {
        "add": GL.GL_FUNC_ADD, "subtract": GL.GL_FUNC_SUBTRACT,
        "reverse_subtract": GL.GL_FUNC_REVERSE_SUBTRACT, "min": GL.GL_MIN, "max": GL.GL_MAX,
    }
    topology = {
        "triangle_list": GL.GL_TRIANGLES, "triangle_strip": GL.GL_TRIANGLE_STRIP,
        "triangle_fan": GL.GL_TRIANGLE_FAN, "line_list": GL.GL_LINES,
        "line_strip": GL.GL_LINE_STRIP, "point_list": GL.GL_POINTS,
    }
    wrap = {
        "repeat": GL.GL_REPEAT, "mirrored_repeat": GL.GL_MIRRORED_REPEAT,
        "clamp_to_edge": GL.GL_CLAMP_TO_EDGE, "clamp_to_border": GL.GL_CLAMP_TO_BORDER,
        "clamp": GL.GL_CLAMP,
    }
    filters = {
        "nearest": GL.GL_NEAREST, "linear": GL.GL_LINEAR,
        "nearest_mipmap_nearest": GL.GL_NEAREST_MIPMAP_NEAREST,
        "linear_mipmap_nearest": GL.GL_LINEAR_MIPMAP_NEAREST,
        "nearest_mipmap_linear": GL.GL_NEAREST_MIPMAP_LINEAR,
        "linear_mipmap_linear": GL.GL_LINEAR_MIPMAP_LINEAR,
    }
    apply = {
        "replace": GL.GL_REPLACE, "decal": GL.GL_DECAL, "modulate": GL.GL_MODULATE,
        "blend": GL.GL_BLEND, "add": GL.GL_ADD,
    }
    combine = {
        "replace": GL.GL_REPLACE, "modulate": GL.GL_MODULATE, "add": GL.GL_ADD,
        "add_signed": GL.GL_ADD_SIGNED, "interpolate": GL.GL_INTERPOLATE,
        "subtract": GL.GL_SUBTRACT, "dot3_rgb": GL.GL_DOT3_RGB, "dot3_rgba": GL.GL_DOT3_RGBA,
    }
    source = {
        "texture": GL.GL_TEXTURE, "constant": GL.GL_CONSTANT,
        "primary": GL.GL_PRIMARY_COLOR, "previous": GL.GL_PREVIOUS,
    }
    operand = {
        "color": GL.GL_SRC_COLOR, "one_minus_color": GL.GL_ONE_MINUS_SRC_COLOR,
        "alpha": GL.GL_SRC_ALPHA, "one_minus_alpha": GL.GL_ONE_MINUS_SRC_ALPHA,
    }
    # In the alpha combiner plumb reads `color` as alpha (GL only allows alpha operands).
    operand_alpha = dict(operand, color=GL.GL_SRC_ALPHA, one_minus_color=GL.GL_ONE_MINUS_SRC_ALPHA)
    internal = {
        "rgba8": GL.GL_RGBA8, "rgb8": GL.GL_RGB8,
        "l8": GL.GL_LUMINANCE8, "la8": GL.GL_LUMINANCE8_ALPHA8,
    }
    return dict(
        compare=compare, stencil_op=stencil_op, factor=factor, equation=equation,
        topology=topology, wrap=wrap, filters=filters, apply=apply, combine=combine,
        source=source, operand=operand, operand_alpha=operand_alpha, internal=internal,
    )


def one_key(d, what):
    """A serde enum with data: {"variant": {...}} (or the bare name of a unit variant)."""
    if isinstance(d, str):
        return d, None
    if not isinstance(d, dict) or len(d) != 1:
        raise Bad(f"{what}: expected one variant, got {d!r}")
    return next(iter(d.items()))


# ---------------------------------------------------------------------------------------
# What GL 1.x cannot express


def lacks_of(fixed):
    """Each (feature, detail) of a draw_fixed's fixed-function state that GL cannot draw."""
    out = []
    lighting = fixed.get("lighting")
    if lighting is not None:
        if fixed.get("per_pixel_lighting"):
            out.append(("per_pixel_lighting", "lighting per pixel; GL 1.x lights vertices"))
        for i, light in enumerate(lighting["lights"]):
            if light is None or not light["on"]:
                continue
            if light.get("range") is not None:
                out.append(("light_range", f"light {i} has range {light['range']}; GL lights reach everywhere"))
            kind, geo = one_key(light["kind"], f"light {i}")
            if kind == "spot":
                if light.get("spot_inner_deg") is not None:
                    out.append(("spot_inner_cone", f"light {i} has an inner cone; GL's cone is hard"))
                c = geo["cutoff_deg"]
                if 90.0 < c < 180.0:
                    out.append(("spot_cutoff_over_90", f"light {i} cutoff {c}°; GL allows 0–90 or 180"))
                if geo["exponent"] > 128.0:
                    out.append(("spot_exponent_over_128", f"light {i} exponent {geo['exponent']}; GL allows 0–128"))
        if lighting["material"]["shininess"] > 128.0:
            out.append(("shininess_over_128", f"shininess {lighting['material']['shininess']}; GL allows 0–128"))
    for k, unit in enumerate(fixed.get("units", [])):
        mode, comb = one_key(unit["apply"], f"unit {k} apply")
        if mode != "combine":
            continue
        for scale in ("rgb_scale", "alpha_scale"):
            if comb[scale] not in (1.0, 2.0, 4.0):
                out.append(("combine_scale", f"unit {k} {scale} {comb[scale]}; GL allows 1, 2, 4"))
        if comb["alpha"] in ("dot3_rgb", "dot3_rgba"):
            out.append(("dot3_alpha", f"unit {k} alpha combiner {comb['alpha']}; GL has no alpha DOT3"))
    return out


# ---------------------------------------------------------------------------------------
# Replay


class Replayer:
    def __init__(self, trace, width, height):
        os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
        from OpenGL import GL, arrays, osmesa

        self.GL, self.np, self.t = GL, trace.np, trace
        self.E = enums(GL)
        self.w, self.h = width, height
        self.ctx = osmesa.OSMesaCreateContextExt(osmesa.OSMESA_RGBA, 24, 8, 0, None)
        if not self.ctx:
            raise Bad("OSMesa: cannot create a context")
        self.buf = arrays.GLubyteArray.zeros((height, width, 4))
        if not osmesa.OSMesaMakeCurrent(self.ctx, self.buf, GL.GL_UNSIGNED_BYTE, width, height):
            raise Bad("OSMesa: cannot make the context current")
        try:
            from OpenGL.GL.ARB.clip_control import GL_LOWER_LEFT, GL_ZERO_TO_ONE, glClipControl
            from OpenGL.GL.ARB.provoking_vertex import GL_FIRST_VERTEX_CONVENTION, glProvokingVertex

            glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE)
            glProvokingVertex(GL_FIRST_VERTEX_CONVENTION)
        except Exception as e:  # noqa: BLE001 - PyOpenGL raises several types here
            raise Bad(f"the driver lacks glClipControl or glProvokingVertex (GL 4.5 / ARB): {e}")
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
        GL.glDisable(GL.GL_DITHER)
        GL.glHint(GL.GL_PERSPECTIVE_CORRECTION_HINT, GL.GL_NICEST)
        GL.glLightModeli(GL.GL_LIGHT_MODEL_COLOR_CONTROL, GL.GL_SINGLE_COLOR)
        self.textures = [self.upload(i, t) for i, t in enumerate(trace.doc.get("textures", []))]

    def upload(self, index, tex):
        GL = self.GL
        name = GL.glGenTextures(1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, name)
        internal = self.E["internal"].get(tex["format"])
        if internal is None:
            raise Bad(f"texture {index}: unknown format {tex['format']!r}")
        for level, lv in enumerate(tex["levels"]):
            texels = self.t.view(lv["texels"], "u1", 4)
            GL.glTexImage2D(GL.GL_TEXTURE_2D, level, internal, lv["width"], lv["height"], 0,
                            GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, texels.tobytes())
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BASE_LEVEL, 0)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, len(tex["levels"]) - 1)
        return name

    # -- commands --

    def clear(self, color, depth, stencil, rect=None):
        GL = self.GL
        GL.glColorMask(True, True, True, True)
        GL.glDepthMask(True)
        GL.glStencilMask(0xFF)
        if rect is None:
            GL.glDisable(GL.GL_SCISSOR_TEST)
        else:
            GL.glEnable(GL.GL_SCISSOR_TEST)
            GL.glScissor(rect["x"], rect["y"], rect["width"], rect["height"])
        bits = 0
        if color is not None:
            GL.glClearColor(*color)
            bits |= GL.GL_COLOR_BUFFER_BIT
        if depth is not None:
            GL.glClearDepth(depth)
            bits |= GL.GL_DEPTH_BUFFER_BIT
        if stencil is not None:
            GL.glClearStencil(stencil)
            bits |= GL.GL_STENCIL_BUFFER_BIT
        if bits:
            GL.glClear(bits)

    def pipeline(self, s):
        GL, E = self.GL, self.E
        vp = s["viewport"]
        GL.glViewportIndexedf(0, vp["x"], vp["y"], vp["width"], vp["height"])
        GL.glDepthRange(vp["min_depth"], vp["max_depth"])
        if s["scissor"] is None:
            GL.glDisable(GL.GL_SCISSOR_TEST)
        else:
            r = s["scissor"]
            GL.glEnable(GL.GL_SCISSOR_TEST)
            GL.glScissor(r["x"], r["y"], r["width"], r["height"])
        if s["cull"] == "none":
            GL.glDisable(GL.GL_CULL_FACE)
        else:
            GL.glEnable(GL.GL_CULL_FACE)
            GL.glCullFace(GL.GL_BACK if s["cull"] == "back" else GL.GL_FRONT)
        # The projection mirrors y (FLIP_Y), which turns the winding over.
        GL.glFrontFace(GL.GL_CW if s["front_face"] == "ccw" else GL.GL_CCW)
        mode = {"fill": GL.GL_FILL, "line": GL.GL_LINE, "point": GL.GL_POINT}[s["polygon_mode"]]
        GL.glPolygonMode(GL.GL_FRONT_AND_BACK, mode)
        GL.glShadeModel(GL.GL_FLAT if s["shade"] == "flat" else GL.GL_SMOOTH)
        # plumb turns the depth test off with ALWAYS and no write; GL's disabled test also
        # skips writes, so the test stays on with the function as given.
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glDepthFunc(E["compare"][s["depth"]["func"]])
        GL.glDepthMask(bool(s["depth"]["write"]))
        po = s["polygon_offset"]
        for cap in (GL.GL_POLYGON_OFFSET_FILL, GL.GL_POLYGON_OFFSET_LINE, GL.GL_POLYGON_OFFSET_POINT):
            (GL.glEnable if (po["factor"] or po["units"]) else GL.glDisable)(cap)
        GL.glPolygonOffset(po["factor"], po["units"])
        st = s["stencil"]
        if st["enabled"]:
            GL.glEnable(GL.GL_STENCIL_TEST)
            GL.glStencilFunc(E["compare"][st["func"]], st["reference"], st["read_mask"])
            GL.glStencilMask(st["write_mask"])
            GL.glStencilOp(E["stencil_op"][st["fail"]], E["stencil_op"][st["depth_fail"]],
                           E["stencil_op"][st["pass"]])
        else:
            GL.glDisable(GL.GL_STENCIL_TEST)
        at = s["alpha_test"]
        if at["func"] == "always":
            GL.glDisable(GL.GL_ALPHA_TEST)
        else:
            GL.glEnable(GL.GL_ALPHA_TEST)
            GL.glAlphaFunc(E["compare"][at["func"]], at["reference"])
        b = s["blend"]
        if b["enabled"]:
            GL.glEnable(GL.GL_BLEND)
            f = E["factor"]
            GL.glBlendFuncSeparate(f[b["src_rgb"]], f[b["dst_rgb"]], f[b["src_alpha"]], f[b["dst_alpha"]])
            GL.glBlendEquationSeparate(E["equation"][b["eq_rgb"]], E["equation"][b["eq_alpha"]])
            GL.glBlendColor(*b["constant"])
        else:
            GL.glDisable(GL.GL_BLEND)
        GL.glColorMask(*[bool(c) for c in s["color_mask"]])
        GL.glPointSize(s["point_size"])
        GL.glLineWidth(s["line_width"])

    def clip_planes(self, planes, clip_from_eye):
        """plumb's planes are in clip space; GL's are in eye space, taken through the
        model-view at the call (identity here): plane·(P·e) = (Pᵀ·plane)·e."""
        GL, np = self.GL, self.np
        for i, p in enumerate(planes):
            cap = GL.GL_CLIP_PLANE0 + i
            if p is None:
                GL.glDisable(cap)
                continue
            eye = clip_from_eye.T @ np.array(p, dtype=np.float64)
            GL.glClipPlane(cap, eye)
            GL.glEnable(cap)

    def matrices(self, projection, modelview):
        GL, np = self.GL, self.np
        flip = np.diag([1.0, -1.0, 1.0, 1.0]).astype(np.float32)
        p = np.asarray(projection, dtype=np.float32).reshape(4, 4).T
        GL.glMatrixMode(GL.GL_PROJECTION)
        GL.glLoadMatrixf((flip @ p).T.copy())
        GL.glMatrixMode(GL.GL_MODELVIEW)
        GL.glLoadMatrixf(modelview)

    def arrays(self, d, positions, width):
        """Client arrays for one draw; returns the vertex count."""
        GL, t = self.GL, self.t
        pos = t.view(d["positions"], "<f4", width)
        GL.glEnableClientState(GL.GL_VERTEX_ARRAY)
        GL.glVertexPointer(width, GL.GL_FLOAT, 0, pos)
        if d.get("normals") is not None:
            GL.glEnableClientState(GL.GL_NORMAL_ARRAY)
            GL.glNormalPointer(GL.GL_FLOAT, 0, t.view(d["normals"], "<f4", 3))
        else:
            GL.glDisableClientState(GL.GL_NORMAL_ARRAY)
            GL.glNormal3f(0.0, 0.0, 1.0)
        if d.get("colors") is not None:
            GL.glEnableClientState(GL.GL_COLOR_ARRAY)
            GL.glColorPointer(4, GL.GL_FLOAT, 0, t.view(d["colors"], "<f4", 4))
        else:
            GL.glDisableClientState(GL.GL_COLOR_ARRAY)
            GL.glColor4f(1.0, 1.0, 1.0, 1.0)
        return len(pos)

    def submit(self, d, count):
        GL, t = self.GL, self.t
        prim = self.E["topology"][d["topology"]]
        idx = d.get("indices")
        if idx is None:
            GL.glDrawArrays(prim, 0, count)
        else:
            kind, v = one_key(idx, "indices")
            a = t.view(v, "<u2" if kind == "u16" else "<u4", 1)
            if len(a) and int(a.max()) >= count:
                raise Bad(f"index {int(a.max())} out of range for {count} vertices")
            GL.glDrawElements(prim, len(a), GL.GL_UNSIGNED_SHORT if kind == "u16" else GL.GL_UNSIGNED_INT, a)

    def draw(self, d):
        GL, np = self.GL, self.np
        self.pipeline(d["state"])
        GL.glDisable(GL.GL_LIGHTING)
        GL.glDisable(GL.GL_FOG)
        self.units([], None)
        ident = np.identity(4, dtype=np.float32)
        self.matrices(ident, ident)
        self.clip_planes(d["state"]["clip_planes"], np.identity(4))
        n = self.arrays(d, d["positions"], 4)
        self.submit(d, n)

    def draw_fixed(self, d):
        GL, np = self.GL, self.np
        f = d["fixed"]
        self.pipeline(d["state"])
        proj = np.array(d["transforms"]["clip_from_view"], dtype=np.float32)
        mv = np.array(d["transforms"]["view_from_model"], dtype=np.float32)
        ident = np.identity(4, dtype=np.float32)
        # Lights, eye planes and clip planes are given in eye space: specify them under an
        # identity model-view.
        self.matrices(proj, ident)
        self.clip_planes(d["state"]["clip_planes"], proj.reshape(4, 4).T.astype(np.float64))
        self.lighting(f.get("lighting"))
        self.fog(f.get("fog"))
        self.units(f.get("units", []), d)
        GL.glMatrixMode(GL.GL_MODELVIEW)
        GL.glLoadMatrixf(mv)
        n = self.arrays(d, d["positions"], 3)
        GL.glEnable(GL.GL_NORMALIZE)
        self.submit(d, n)

    def lighting(self, lt):
        GL = self.GL
        if lt is None:
            GL.glDisable(GL.GL_LIGHTING)
            GL.glDisable(GL.GL_COLOR_MATERIAL)
            return
        GL.glEnable(GL.GL_LIGHTING)
        m = lt["material"]
        face = GL.GL_FRONT_AND_BACK
        GL.glMaterialfv(face, GL.GL_EMISSION, [*m["emissive"], 1.0])
        GL.glMaterialfv(face, GL.GL_AMBIENT, [*m["ambient"], 1.0])
        GL.glMaterialfv(face, GL.GL_DIFFUSE, [*m["diffuse"], m["alpha"]])
        GL.glMaterialfv(face, GL.GL_SPECULAR, [*m["specular"], 1.0])
        GL.glMaterialf(face, GL.GL_SHININESS, m["shininess"])
        GL.glLightModelfv(GL.GL_LIGHT_MODEL_AMBIENT, [*lt["global_ambient"], 1.0])
        GL.glLightModeli(GL.GL_LIGHT_MODEL_LOCAL_VIEWER, int(bool(lt["local_viewer"])))
        GL.glLightModeli(GL.GL_LIGHT_MODEL_TWO_SIDE, int(bool(lt["two_sided"])))
        GL.glLightModeli(GL.GL_LIGHT_MODEL_COLOR_CONTROL,
                         GL.GL_SEPARATE_SPECULAR_COLOR if lt["separate_specular"] else GL.GL_SINGLE_COLOR)
        if lt["color_material"]:
            GL.glColorMaterial(face, GL.GL_AMBIENT_AND_DIFFUSE)
            GL.glEnable(GL.GL_COLOR_MATERIAL)
        else:
            GL.glDisable(GL.GL_COLOR_MATERIAL)
        for i in range(8):
            light = lt["lights"][i] if i < len(lt["lights"]) else None
            self.light(GL.GL_LIGHT0 + i, light)

    def light(self, cap, light):
        GL = self.GL
        if light is None or not light["on"]:
            GL.glDisable(cap)
            return
        GL.glEnable(cap)
        k = light["intensity"]

        def scaled(c):
            return [min(max(x * k, 0.0), 1.0) for x in c] + [1.0]

        kind, geo = one_key(light["kind"], "light")
        zero = [0.0, 0.0, 0.0, 1.0]
        GL.glLightfv(cap, GL.GL_AMBIENT, scaled(light["ambient"]))
        GL.glLightfv(cap, GL.GL_DIFFUSE, zero if kind == "ambient" else scaled(light["diffuse"]))
        GL.glLightfv(cap, GL.GL_SPECULAR, zero if kind == "ambient" else scaled(light["specular"]))
        c, lin, q = light["attenuation"]
        local = kind in ("point", "spot")
        GL.glLightf(cap, GL.GL_CONSTANT_ATTENUATION, c if local else 1.0)
        GL.glLightf(cap, GL.GL_LINEAR_ATTENUATION, lin if local else 0.0)
        GL.glLightf(cap, GL.GL_QUADRATIC_ATTENUATION, q if local else 0.0)
        GL.glLightf(cap, GL.GL_SPOT_CUTOFF, 180.0)
        if kind == "directional":
            dx, dy, dz = geo["direction"]
            GL.glLightfv(cap, GL.GL_POSITION, [-dx, -dy, -dz, 0.0])
        elif kind == "ambient":
            GL.glLightfv(cap, GL.GL_POSITION, [0.0, 0.0, 1.0, 0.0])
        else:
            GL.glLightfv(cap, GL.GL_POSITION, [*geo["position"], 1.0])
        if kind == "spot":
            GL.glLightfv(cap, GL.GL_SPOT_DIRECTION, geo["direction"])
            cutoff = geo["cutoff_deg"]
            GL.glLightf(cap, GL.GL_SPOT_CUTOFF, 180.0 if cutoff >= 180.0 else min(cutoff, 90.0))
            GL.glLightf(cap, GL.GL_SPOT_EXPONENT, min(max(geo["exponent"], 0.0), 128.0))

    def fog(self, fog):
        GL = self.GL
        if fog is None:
            GL.glDisable(GL.GL_FOG)
            return
        GL.glEnable(GL.GL_FOG)
        mode, p = one_key(fog["mode"], "fog mode")
        if mode == "linear":
            GL.glFogi(GL.GL_FOG_MODE, GL.GL_LINEAR)
            GL.glFogf(GL.GL_FOG_START, p["start"])
            GL.glFogf(GL.GL_FOG_END, p["end"])
        else:
            GL.glFogi(GL.GL_FOG_MODE, GL.GL_EXP if mode == "exp" else GL.GL_EXP2)
            GL.glFogf(GL.GL_FOG_DENSITY, p["density"])
        GL.glFogfv(GL.GL_FOG_COLOR, fog["color"])
        GL.glHint(GL.GL_FOG_HINT, GL.GL_NICEST if fog["per_pixel"] else GL.GL_FASTEST)
        # NV_fog_distance: GL's default is |z_eye| (plumb's eye_depth); radial is the distance.
        radial = fog["distance"] == "radial"
        GL.glFogi(0x855A, 0x855B if radial else 0x855C)  # FOG_DISTANCE_MODE_NV, EYE_RADIAL_NV / EYE_PLANE_ABSOLUTE_NV

    def units(self, units, d):
        GL, E, np = self.GL, self.E, self.np
        for k in range(8):
            GL.glActiveTexture(GL.GL_TEXTURE0 + k)
            GL.glClientActiveTexture(GL.GL_TEXTURE0 + k)
            if k >= len(units):
                GL.glDisable(GL.GL_TEXTURE_2D)
                GL.glDisableClientState(GL.GL_TEXTURE_COORD_ARRAY)
                for c in (GL.GL_TEXTURE_GEN_S, GL.GL_TEXTURE_GEN_T, GL.GL_TEXTURE_GEN_R, GL.GL_TEXTURE_GEN_Q):
                    GL.glDisable(c)
                continue
            u = units[k]
            if not 0 <= u["texture"] < len(self.textures):
                raise Bad(f"unit {k}: texture {u['texture']} does not exist")
            GL.glEnable(GL.GL_TEXTURE_2D)
            GL.glBindTexture(GL.GL_TEXTURE_2D, self.textures[u["texture"]])
            s = u["sampler"]
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, E["filters"][s["mag"]])
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, E["filters"][s["min"]])
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, E["wrap"][s["wrap_u"]])
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, E["wrap"][s["wrap_v"]])
            GL.glTexParameterfv(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_BORDER_COLOR, s["border"])
            GL.glTexParameterf(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_LOD, s["min_lod"])
            GL.glTexParameterf(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LOD, s["max_lod"])
            GL.glTexParameterf(GL.GL_TEXTURE_2D, 0x84FE, float(max(1, min(s["max_anisotropy"], 16))))  # MAX_ANISOTROPY
            GL.glTexEnvf(GL.GL_TEXTURE_FILTER_CONTROL, GL.GL_TEXTURE_LOD_BIAS, s["lod_bias"])
            GL.glTexEnvfv(GL.GL_TEXTURE_ENV, GL.GL_TEXTURE_ENV_COLOR, u["constant"])
            mode, comb = one_key(u["apply"], f"unit {k} apply")
            if mode == "combine":
                self.combiner(comb)
            else:
                GL.glTexEnvi(GL.GL_TEXTURE_ENV, GL.GL_TEXTURE_ENV_MODE, E["apply"][mode])
            self.texgen(u["texgen"])
            GL.glMatrixMode(GL.GL_TEXTURE)
            GL.glLoadMatrixf(np.array(u["matrix"], dtype=np.float32))
            GL.glMatrixMode(GL.GL_MODELVIEW)
            uvs = d.get("uvs", [])
            if u["uv_set"] < len(uvs):
                GL.glEnableClientState(GL.GL_TEXTURE_COORD_ARRAY)
                GL.glTexCoordPointer(2, GL.GL_FLOAT, 0, self.t.view(uvs[u["uv_set"]], "<f4", 2))
            else:
                GL.glDisableClientState(GL.GL_TEXTURE_COORD_ARRAY)
                GL.glMultiTexCoord4f(GL.GL_TEXTURE0 + k, 0.0, 0.0, 0.0, 1.0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glClientActiveTexture(GL.GL_TEXTURE0)

    def combiner(self, c):
        GL, E = self.GL, self.E
        GL.glTexEnvi(GL.GL_TEXTURE_ENV, GL.GL_TEXTURE_ENV_MODE, GL.GL_COMBINE)
        GL.glTexEnvi(GL.GL_TEXTURE_ENV, GL.GL_COMBINE_RGB, E["combine"][c["rgb"]])
        alpha = c["alpha"] if c["alpha"] not in ("dot3_rgb", "dot3_rgba") else "replace"
        GL.glTexEnvi(GL.GL_TEXTURE_ENV, GL.GL_COMBINE_ALPHA, E["combine"][alpha])
        for i in range(3):
            GL.glTexEnvi(GL.GL_TEXTURE_ENV, GL.GL_SRC0_RGB + i, E["source"][c["src_rgb"][i]])
            GL.glTexEnvi(GL.GL_TEXTURE_ENV, GL.GL_OPERAND0_RGB + i, E["operand"][c["op_rgb"][i]])
            GL.glTexEnvi(GL.GL_TEXTURE_ENV, GL.GL_SRC0_ALPHA + i, E["source"][c["src_alpha"][i]])
            GL.glTexEnvi(GL.GL_TEXTURE_ENV, GL.GL_OPERAND0_ALPHA + i, E["operand_alpha"][c["op_alpha"][i]])
        GL.glTexEnvf(GL.GL_TEXTURE_ENV, GL.GL_RGB_SCALE, c["rgb_scale"] if c["rgb_scale"] in (1.0, 2.0, 4.0) else 1.0)
        GL.glTexEnvf(GL.GL_TEXTURE_ENV, GL.GL_ALPHA_SCALE, c["alpha_scale"] if c["alpha_scale"] in (1.0, 2.0, 4.0) else 1.0)

    def texgen(self, tg):
        GL = self.GL
        coords = (GL.GL_S, GL.GL_T, GL.GL_R, GL.GL_Q)
        caps = (GL.GL_TEXTURE_GEN_S, GL.GL_TEXTURE_GEN_T, GL.GL_TEXTURE_GEN_R, GL.GL_TEXTURE_GEN_Q)
        kind, p = one_key(tg, "texgen")
        if kind == "none":
            for cap in caps:
                GL.glDisable(cap)
        elif kind == "sphere_map":
            for coord, cap in zip(coords[:2], caps[:2]):
                GL.glTexGeni(coord, GL.GL_TEXTURE_GEN_MODE, GL.GL_SPHERE_MAP)
                GL.glEnable(cap)
            # r and q come from the unit's coordinates: (0, 1) from a 2-component array or
            # the (0, 0, 0, 1) set in `units` when there is none.
            GL.glDisable(caps[2])
            GL.glDisable(caps[3])
        else:
            linear = kind == "object_linear"
            for coord, cap, plane in zip(coords, caps, p["planes"]):
                GL.glTexGeni(coord, GL.GL_TEXTURE_GEN_MODE, GL.GL_OBJECT_LINEAR if linear else GL.GL_EYE_LINEAR)
                GL.glTexGenfv(coord, GL.GL_OBJECT_PLANE if linear else GL.GL_EYE_PLANE, plane)
                GL.glEnable(cap)

    def run(self):
        commands = self.t.doc["commands"]
        lacks = []
        for i, cmd in enumerate(commands):
            name, body = one_key(cmd, f"command {i}")
            if name == "draw_fixed":
                for feature, detail in lacks_of(body["fixed"]):
                    print(f"draw {i}: {feature}: {detail}", file=sys.stderr)
                    lacks.append(feature)
        if lacks:
            raise Unsupported(lacks[0])
        for i, cmd in enumerate(commands):
            name, b = one_key(cmd, f"command {i}")
            if name == "clear":
                self.clear(b["color"], b["depth"], b["stencil"])
            elif name == "clear_rect":
                self.clear(b.get("color"), b.get("depth"), b.get("stencil"), b["rect"])
            elif name == "draw":
                self.draw(b)
            elif name == "draw_fixed":
                self.draw_fixed(b)
            else:
                raise Bad(f"command {i}: unknown command {name!r}")
        self.GL.glFinish()
        data = self.GL.glReadPixels(0, 0, self.w, self.h, self.GL.GL_RGBA, self.GL.GL_UNSIGNED_BYTE)
        return bytes(data)


# ---------------------------------------------------------------------------------------
# Output and the command line


def write_png(path, width, height, rgba):
    """Row 0 of `rgba` is the image's top row (GL window row 0 under GL_UPPER_LEFT)."""
    stride = 4 * width
    raw = b"".join(b"\x00" + rgba[y * stride:(y + 1) * stride] for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def is_trace(path):
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return False
    return '"plumb-draws"' in head


def record(plumb, src, width, height, view, work):
    """A scene or model case as a trace: plumb draws it once and writes down its calls."""
    trace = os.path.join(work, "case.json")
    cmd = [plumb, "render", src, "-o", os.path.join(work, "plumb.png"),
           "--size", f"{width}x{height}", "--trace-out", trace]
    if view:
        cmd += ["--view", view]
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or [""])[-1]
        if "draw_pbr" in p.stderr or "PBR" in p.stderr:
            raise Unsupported("pbr")
        raise Bad(f"plumb render --trace-out failed: {last}")
    return trace


def main(argv):
    args = list(argv)
    plumb = os.environ.get("PLUMB", "plumb")
    if args[:1] == ["--caps"]:
        print(json.dumps({"backend": "plumb-gl (OpenGL fixed function on OSMesa)", "lacks": LACKS}))
        return 0
    if args[:1] == ["--plumb"] and len(args) > 1:
        plumb, args = args[1], args[2:]
    if len(args) < 4:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 1
    src, out, width, height = args[0], args[1], int(args[2]), int(args[3])
    view = args[5] if len(args) > 5 else ""
    try:
        with tempfile.TemporaryDirectory(prefix="plumb-gl-") as work:
            path = src if is_trace(src) else record(plumb, src, width, height, view, work)
            trace = Trace(path)
            tw, th = trace.doc["size"]
            if (tw, th) != (width, height):
                raise Bad(f"{path}: the trace is {tw}x{th}, the case asks {width}x{height}")
            pixels = Replayer(trace, width, height).run()
            write_png(out, width, height, pixels)
    except Unsupported as e:
        print(f"unsupported: {e}", file=sys.stderr)
        return UNSUPPORTED
    except (Bad, OSError, KeyError, ValueError, TypeError) as e:
        print(f"plumb-gl: {src}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
