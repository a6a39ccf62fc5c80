//! Tests of `[[shapes]]` (`shapes.rs`): a shape of spheres, a mesh shape,
//! and every bad shape's one line.

use super::tests::{BED, HEAD};
use crate::scene::parse::parse_str;
use crate::scene::types::ClumpSource;

/// The scene of `tests.rs` (domain 0.1 × 0.1 × 0.2 m) with its lattice
/// bed and `shapes`.
fn parse(shapes: &str) -> Result<crate::scene::Scene, String> {
    super::tests::parse(&format!("{BED}{shapes}"))
}

#[test]
fn a_shape_of_spheres_is_read() {
    let s = parse(
        "[[shapes]]\nname = \"dumbbell\"\nspheres = [[-0.0006, 0.0, 0.0, 0.001], [0.0006, 0.0, 0.0, 0.001]]\n",
    )
    .unwrap();
    assert_eq!(s.shapes.len(), 1);
    assert_eq!(s.shapes[0].name, "dumbbell");
    assert_eq!(
        s.shapes[0].source,
        ClumpSource::Spheres(vec![[-0.0006, 0.0, 0.0, 0.001], [0.0006, 0.0, 0.0, 0.001]])
    );
}

/// Every bad shape in one line naming the key.
#[test]
fn bad_shapes_are_refused_in_one_line() {
    let cases = [
        ("name = \"a\"\nspheres = []", "shapes[0].spheres: a shape needs at least one sphere"),
        (
            "name = \"a\"\nspheres = [[0.0, 0.0, 0.0, 0.001], [0.0, 0.0, 0.0, 0.0]]",
            "shapes[0].spheres[1]: sphere 1: radius must be finite and > 0 (got 0)",
        ),
        (
            "name = \"a\"\nspheres = [[0.0, 0.0, 0.0, nan]]",
            "shapes[0].spheres[0][3]: expected a finite number",
        ),
        (
            "name = \"a\"\nspheres = [[0.0, 0.0, 0.001]]",
            "shapes[0].spheres[0]: expected [x, y, z, radius] (m), found 3 values",
        ),
        ("name = \"a\"", "shapes[0]: expected spheres = [[x, y, z, radius], ...]"),
        (
            "name = \"a\"\nspheres = [[0.0, 0.0, 0.0, 0.001]]\nfile = \"t.stl\"\nspheres_count = 3",
            "shapes[0].file: give either spheres or file (with spheres_count), not both",
        ),
        (
            "name = \"a\"\nfile = \"t.stl\"\nspheres_count = 0",
            "shapes[0].spheres_count: spheres_count must be at least 1 (got 0)",
        ),
        (
            "name = \"a\"\nfile = \"t.stl\"",
            "shapes[0].spheres_count: missing key",
        ),
        (
            "name = \"long\"\nspheres = [[0.0, 0.0, 0.0, 0.001], [0.0, 0.0, 0.2, 0.001]]",
            "shapes[0].name: shape \"long\" is 0.2020 m across along z, more than the domain's 0.2000 m",
        ),
        ("spheres = [[0.0, 0.0, 0.0, 0.001]]", "shapes[0].name: missing key"),
    ];
    for (body, want) in cases {
        let e = parse(&format!("[[shapes]]\n{body}\n")).unwrap_err();
        assert!(e.contains(want), "{body}:\n  {e}\n  wanted {want}");
    }
    let e = parse(
        "[[shapes]]\nname = \"a\"\nspheres = [[0.0, 0.0, 0.0, 0.001]]\n[[shapes]]\nname = \"a\"\nspheres = [[0.0, 0.0, 0.0, 0.001]]\n",
    )
    .unwrap_err();
    assert!(
        e.contains("shapes[1].name: shapes[0] is already named \"a\""),
        "{e}"
    );
}

/// A mesh shape: the file relative to the scene, closed and of volume.
#[test]
fn a_mesh_shape_must_be_closed() {
    let d = std::env::temp_dir().join(format!("talus_shapes_{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    // a tetrahedron, counter-clockwise from outside; then one face less
    let v = ["0 0 0", "0.002 0 0", "0 0.002 0", "0 0 0.002"];
    let faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let stl = |faces: &[[usize; 3]]| {
        let mut s = String::from("solid t\n");
        for f in faces {
            s += "facet normal 0 0 0\nouter loop\n";
            for &k in f {
                s += &format!("vertex {}\n", v[k]);
            }
            s += "endloop\nendfacet\n";
        }
        s + "endsolid t\n"
    };
    std::fs::write(d.join("tet.stl"), stl(&faces)).unwrap();
    std::fs::write(d.join("open.stl"), stl(&faces[..3])).unwrap();
    let scene = |file: &str| {
        let text =
            format!("{HEAD}{BED}[[shapes]]\nname = \"t\"\nfile = \"{file}\"\nspheres_count = 4\n");
        std::fs::write(d.join("s.toml"), &text).unwrap();
        parse_str(&text, Some(&d.join("s.toml"))).map_err(|e| e.to_string())
    };
    let s = scene("tet.stl").unwrap();
    assert!(
        matches!(&s.shapes[0].source, ClumpSource::Mesh { count: 4, triangles, .. } if triangles.len() == 4)
    );
    let e = scene("open.stl").unwrap_err();
    assert!(
        e.contains("shapes[0].file: mesh file")
            && e.contains("the mesh is not closed: 3 edges belong to one triangle only"),
        "{e}"
    );
    std::fs::remove_dir_all(&d).ok();
}

const DUMBBELL: &str =
    "[[shapes]]\nname = \"dumbbell\"\nspheres = [[-0.0006, 0.0, 0.0, 0.001], [0.0006, 0.0, 0.0, 0.001]]\n";

/// `[[insert]] shape` and `orientation`: clumps poured, their radius the
/// shape's largest member's; a fixed orientation normalised.
#[test]
fn an_insert_of_a_shape_is_read() {
    use crate::scene::types::Orientation;
    let ins = "[[insert]]\nregion = { min = [0.0, 0.0, 0.15], max = [0.1, 0.1, 0.2] }\nrate = 100.0\nshape = \"dumbbell\"\nmaterial = \"glass\"\n";
    let s = parse(&format!("{DUMBBELL}{ins}")).unwrap();
    assert_eq!(s.inserts[0].shape, Some(0));
    assert_eq!(s.inserts[0].orientation, Orientation::Random);
    assert_eq!(s.inserts[0].radius.max(), 0.001);
    let s = parse(&format!(
        "{DUMBBELL}{ins}orientation = [2.0, 0.0, 0.0, 0.0]\n"
    ))
    .unwrap();
    assert_eq!(
        s.inserts[0].orientation,
        Orientation::Fixed([1.0, 0.0, 0.0, 0.0])
    );
    let s = parse(&format!("{DUMBBELL}{ins}orientation = \"random\"\n")).unwrap();
    assert_eq!(s.inserts[0].orientation, Orientation::Random);
}

#[test]
fn bad_inserts_of_shapes_are_refused_in_one_line() {
    let base = "[[insert]]\nregion = { min = [0.0, 0.0, 0.15], max = [0.1, 0.1, 0.2] }\nrate = 100.0\nmaterial = \"glass\"\n";
    let cases = [
        ("shape = \"cube\"", "insert[0].shape: unknown shape \"cube\" (defined in [[shapes]]: dumbbell)"),
        (
            "shape = \"dumbbell\"\nradius = 0.001",
            "insert[0].shape: give either radius (spheres) or shape (clumps), not both",
        ),
        (
            "radius = 0.001\norientation = \"random\"",
            "insert[0].orientation: orientation is a clump's: give shape too",
        ),
        (
            "shape = \"dumbbell\"\norientation = [0.0, 0.0, 0.0, 0.0]",
            "insert[0].orientation: the quaternion is zero",
        ),
        (
            "shape = \"dumbbell\"\norientation = [1.0, 0.0, 0.0]",
            "insert[0].orientation: expected \"random\" or a quaternion [w, x, y, z], found 3 values",
        ),
        (
            "shape = \"dumbbell\"\norientation = \"upright\"",
            "insert[0].orientation: expected \"random\" or a quaternion [w, x, y, z]",
        ),
        ("", "insert[0].radius: missing key (expected radius = <m>"),
    ];
    for (tail, want) in cases {
        let e = parse(&format!("{DUMBBELL}{base}{tail}\n")).unwrap_err();
        assert!(e.contains(want), "{tail}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}
