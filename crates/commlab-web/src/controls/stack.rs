//! Tables that fit a phone: below 760 px a `class="stack"` table turns into
//! one block per row (`style.css`), each cell headed by its column's name.
//! The names ride on the table as CSS custom properties (`--c1` …), so the
//! cells need no attribute of their own and rows added later are labelled too.

/// The `style` of a stacked table whose columns are `headings`, in order:
/// `--c1:"size";--c2:"measured";…` (at most 9 columns are labelled).
pub fn stack_labels<S: AsRef<str>>(headings: &[S]) -> String {
    use std::fmt::Write;
    let mut style = String::new();
    for (i, h) in headings.iter().take(9).enumerate() {
        let _ = write!(style, "--c{}:\"", i + 1);
        for c in h.as_ref().chars() {
            match c {
                '"' | '\\' => style.extend(['\\', c]),
                '\n' | '\r' => style.push(' '),
                c => style.push(c),
            }
        }
        style.push_str("\";");
    }
    style
}

#[cfg(test)]
mod tests {
    use super::stack_labels;

    #[test]
    fn labels_are_css_strings_in_column_order() {
        assert_eq!(stack_labels(&["size", "time (µs)"]), r#"--c1:"size";--c2:"time (µs)";"#);
        // A quote or a backslash cannot end the string early.
        assert_eq!(stack_labels(&[r#"a"b\c"#]), r#"--c1:"a\"b\\c";"#);
        assert_eq!(stack_labels(&[""; 12]).matches("--c").count(), 9);
    }
}
