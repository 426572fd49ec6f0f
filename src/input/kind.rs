//! What `scan --input KIND` reads: directories of files (the default), or one
//! file of records of another kind.

use std::fmt;
use std::str::FromStr;

/// The kinds of input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InputKind {
    /// Directories (and files) of documents: the walk.
    #[default]
    Dirs,
    /// CSV/TSV `id,x1,…,xd`: real vectors ([`crate::input::vectors`]).
    Vectors,
    /// CSV/TSV `id,0101…` or `id,0x…`: bit strings ([`crate::input::vectors`]).
    Bits,
}

impl InputKind {
    pub const ALL: [InputKind; 3] = [InputKind::Dirs, InputKind::Vectors, InputKind::Bits];

    pub fn name(self) -> &'static str {
        match self {
            InputKind::Dirs => "dirs",
            InputKind::Vectors => "vectors",
            InputKind::Bits => "bits",
        }
    }
}

impl fmt::Display for InputKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for InputKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        InputKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = InputKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown input kind {s:?} (one of: {})", names.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in InputKind::ALL {
            assert_eq!(kind.name().parse::<InputKind>(), Ok(kind));
        }
        assert!("parquet".parse::<InputKind>().is_err());
    }
}
