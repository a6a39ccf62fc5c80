// Shared by the viewer's shaders (src/view/render.rs): the per-draw
// uniforms (`render::Globals`, 128 bytes) and the colour tables.

struct Globals {
    view_proj: mat4x4<f32>,
    // xyz: the camera's position; w: 1 when the target is not sRGB (the
    // linear colours are encoded before output), else 0
    eye: vec4<f32>,
    // the clip plane n·p + d: what lies where it is > 0 is hidden
    clip: vec4<f32>,
    // legend min, max; z: 1 = categorical colours (material, id); w: 1 =
    // the clip plane is on
    legend: vec4<f32>,
    // width, height (pixels), instances, 0
    viewport: vec4<f32>,
}

// a particle's scalar with these bits is not drawn (marked removed)
const HIDDEN: u32 = 0xFFFFFFFFu;
// entries of the continuous colour map, then of the categorical table
const N_MAP: u32 = 256u;
const N_CAT: u32 = 16u;

// colours are linear (colormap.rs); an sRGB target encodes them itself
fn to_target(rgb: vec3<f32>) -> vec3<f32> {
    if (g.eye.w > 0.5) {
        return pow(clamp(rgb, vec3<f32>(0.0), vec3<f32>(1.0)), vec3<f32>(1.0 / 2.2));
    }
    return rgb;
}

fn clipped(p: vec3<f32>) -> bool {
    return g.legend.w > 0.5 && dot(g.clip.xyz, p) + g.clip.w > 0.0;
}
