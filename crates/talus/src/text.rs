//! Quoting what a user's file holds in a one-line message.

/// At most 40 characters of `s`, with control characters escaped (a NUL
/// shows as `\0`), so that a message stays one short line whatever the
/// file held; `…` marks a cut.
pub fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(40).flat_map(char::escape_debug).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_short_and_printable() {
        assert_eq!(snippet("1,2,3"), "1,2,3");
        let nuls = "\0".repeat(13_000);
        let s = snippet(&nuls);
        assert_eq!(s, format!("{}…", "\\0".repeat(40)));
        assert_eq!(snippet("a\tb\nc"), "a\\tb\\nc");
    }
}
