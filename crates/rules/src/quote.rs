//! User text as a message quotes it.

/// Text a user gave (a name, a move, a tag's value) as an error or a transcript quotes it:
/// trimmed, and cut short past 60 characters with `…`, so that a message is never much longer
/// than its explanation whatever was sent (a request or a line may hold a MiB).
pub fn quoted(text: &str) -> String {
    const MAX: usize = 60;
    let text = text.trim();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn long_text_is_cut_at_sixty_characters() {
        assert_eq!(quoted("  d3-d4 "), "d3-d4");
        let sixty = "é".repeat(60);
        assert_eq!(quoted(&sixty), sixty);
        assert_eq!(quoted(&"é".repeat(61)), format!("{sixty}…"));
        assert_eq!(quoted(&"a".repeat(1 << 20)).chars().count(), 61);
    }
}
