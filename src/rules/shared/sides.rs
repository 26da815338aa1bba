//! The two sides of a two-player game: their roles, the names the mail
//! gives them, and the other side of one.

/// Two sides, each as (role, name as the mail writes it).
pub struct TwoSides {
    pub first: (&'static str, &'static str),
    pub second: (&'static str, &'static str),
}

impl TwoSides {
    /// The other side's role (any role that is not the first is the
    /// second).
    pub fn other(&self, side: &str) -> &'static str {
        if side == self.first.0 {
            self.second.0
        } else {
            self.first.0
        }
    }

    /// The side's name as the mail writes it.
    pub fn name(&self, side: &str) -> &'static str {
        if side == self.first.0 {
            self.first.1
        } else {
            self.second.1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_other_side_and_names() {
        let t = TwoSides { first: ("austria", "Austria"), second: ("france", "France") };
        assert_eq!(t.other("austria"), "france");
        assert_eq!(t.other("france"), "austria");
        assert_eq!(t.name("france"), "France");
        assert_eq!(t.name("austria"), "Austria");
    }
}
