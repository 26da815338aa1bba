//! Square boards: Mantua's Battle Display, Tacticum's grid. A square by
//! column and row from 0, named as its game prints it (`B3`: row letter,
//! column number, for Mantua; `c3`: column letter, row number, like a
//! chessboard, for Tacticum); four facings, steps, rays and neighbours.

use crate::engine::Problem;
use serde::{Deserialize, Serialize};

/// A square, from the top-left (row 0 is the first printed row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Sq {
    pub col: u8,
    pub row: u8,
}

impl Sq {
    /// The (columns, rows) step from this square towards `to`: each part
    /// -1, 0 or 1, so a diagonal (a rally's step) is a step too.
    pub fn toward(self, to: Sq) -> (i32, i32) {
        let d = |a: u8, b: u8| (i32::from(b) - i32::from(a)).signum();
        (d(self.col, to.col), d(self.row, to.row))
    }

    /// How many king's steps apart: the length of a straight or diagonal
    /// line between the two.
    pub fn distance(self, to: Sq) -> u8 {
        self.col.abs_diff(to.col).max(self.row.abs_diff(to.row))
    }

    /// How many orthogonal steps apart, with nothing in the way: 1 for
    /// squares side by side.
    pub fn steps(self, to: Sq) -> u32 {
        u32::from(self.col.abs_diff(to.col)) + u32::from(self.row.abs_diff(to.row))
    }
}

/// How a game writes a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Naming {
    /// `B3`: the row's letter, then the column's number from 1.
    RowLetter,
    /// `c3`: the column's letter, then the row's number from 1.
    ColumnLetter,
}

/// The four facings (and orthogonal steps), `N` towards row 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Dir4 {
    N,
    E,
    S,
    W,
}

impl Dir4 {
    pub const ALL: [Dir4; 4] = [Dir4::N, Dir4::E, Dir4::S, Dir4::W];

    /// (columns, rows) of one step.
    pub fn delta(self) -> (i32, i32) {
        match self {
            Dir4::N => (0, -1),
            Dir4::E => (1, 0),
            Dir4::S => (0, 1),
            Dir4::W => (-1, 0),
        }
    }

    /// A quarter turn: right is clockwise.
    pub fn turn(self, right: bool) -> Dir4 {
        Dir4::ALL[(self as usize + if right { 1 } else { 3 }) % 4]
    }

    pub fn opposite(self) -> Dir4 {
        Dir4::ALL[(self as usize + 2) % 4]
    }

    /// `^ > v <`, as maps and displays draw a facing.
    pub fn arrow(self) -> char {
        ['^', '>', 'v', '<'][self as usize]
    }
}

/// A board's size and naming.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    pub columns: u8,
    pub rows: u8,
    pub naming: Naming,
}

impl Naming {
    /// A square named column letter first (`e4`), without a board: how an
    /// order writes itself back.
    pub fn column_letter(sq: Sq) -> String {
        format!("{}{}", (b'a' + sq.col) as char, sq.row + 1)
    }
}

impl Board {
    pub fn contains(&self, col: i32, row: i32) -> bool {
        (0..self.columns as i32).contains(&col) && (0..self.rows as i32).contains(&row)
    }

    /// The square `n` steps from `sq` towards `d`, if on the board.
    pub fn step(&self, sq: Sq, d: Dir4, n: i32) -> Option<Sq> {
        let (dc, dr) = d.delta();
        let (c, r) = (sq.col as i32 + dc * n, sq.row as i32 + dr * n);
        self.contains(c, r).then_some(Sq { col: c as u8, row: r as u8 })
    }

    /// The next square towards `d`.
    pub fn ahead(&self, sq: Sq, d: Dir4) -> Option<Sq> {
        self.step(sq, d, 1)
    }

    /// Every square from `sq` (not included) to the edge towards `d`.
    pub fn ray(&self, sq: Sq, d: Dir4) -> Vec<Sq> {
        (1..).map_while(|n| self.step(sq, d, n)).collect()
    }

    /// The orthogonal neighbours on the board, N, E, S, W.
    pub fn neighbours(&self, sq: Sq) -> Vec<Sq> {
        Dir4::ALL.iter().filter_map(|&d| self.ahead(sq, d)).collect()
    }

    /// The eight neighbours, diagonals included.
    pub fn around(&self, sq: Sq) -> Vec<Sq> {
        let mut out = Vec::new();
        for dr in -1..=1 {
            for dc in -1..=1 {
                let (c, r) = (sq.col as i32 + dc, sq.row as i32 + dr);
                if (dc, dr) != (0, 0) && self.contains(c, r) {
                    out.push(Sq { col: c as u8, row: r as u8 });
                }
            }
        }
        out
    }

    /// The square's printed name.
    pub fn name(&self, sq: Sq) -> String {
        match self.naming {
            Naming::RowLetter => format!("{}{}", (b'A' + sq.row) as char, sq.col + 1),
            Naming::ColumnLetter => Naming::column_letter(sq),
        }
    }

    /// A square from its name, in any letter case; `what` names the board
    /// in the problem ("Battle Display").
    pub fn parse(&self, q: &str, what: &str) -> Result<Sq, Problem> {
        self.square(q).ok_or_else(|| {
            let last = self.name(Sq { col: self.columns - 1, row: self.rows - 1 });
            let first = self.name(Sq { col: 0, row: 0 });
            let t = q.trim();
            Problem::new(format!("{t:?} is not a square of the {what}")).hint(format!("squares are {first} to {last}"))
        })
    }

    /// A square from its name, in any letter case, if it names one: what
    /// the rules ask of their own records, where [`Board::parse`]'s
    /// problem would be built only to be dropped.
    pub fn square(&self, q: &str) -> Option<Sq> {
        let t = q.trim();
        let mut chars = t.chars();
        let letter = chars.next().map(|c| c.to_ascii_lowercase());
        let number = chars.as_str().parse::<u8>().ok().filter(|n| *n >= 1);
        let sq = match (letter, number) {
            (Some(l), Some(n)) if l.is_ascii_lowercase() => {
                let l = l as u8 - b'a';
                match self.naming {
                    Naming::RowLetter => Some(Sq { col: n - 1, row: l }),
                    Naming::ColumnLetter => Some(Sq { col: l, row: n - 1 }),
                }
            }
            _ => None,
        };
        sq.filter(|s| self.contains(s.col as i32, s.row as i32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DISPLAY: Board = Board { columns: 5, rows: 3, naming: Naming::RowLetter };
    const CHESS: Board = Board { columns: 11, rows: 8, naming: Naming::ColumnLetter };

    #[test]
    fn names_both_ways() {
        assert_eq!(DISPLAY.name(Sq { col: 2, row: 1 }), "B3");
        assert_eq!(DISPLAY.parse("b3", "Battle Display"), Ok(Sq { col: 2, row: 1 }));
        assert!(DISPLAY.parse("D1", "Battle Display").unwrap_err().suggestion.unwrap().contains("A1 to C5"));
        assert!(DISPLAY.parse("A0", "x").is_err());
        assert!(DISPLAY.parse("A6", "x").is_err());
        assert!(DISPLAY.parse("", "x").is_err());
        assert!(DISPLAY.parse("é1", "x").is_err());
        assert_eq!(CHESS.name(Sq { col: 2, row: 2 }), "c3");
        assert_eq!(CHESS.parse("K8", "board"), Ok(Sq { col: 10, row: 7 }));
    }

    #[test]
    fn steps_rays_and_neighbours() {
        let b3 = Sq { col: 2, row: 1 };
        assert_eq!(DISPLAY.ahead(b3, Dir4::N), Some(Sq { col: 2, row: 0 }));
        assert_eq!(DISPLAY.step(b3, Dir4::N, 2), None);
        assert_eq!(DISPLAY.ray(b3, Dir4::E), [Sq { col: 3, row: 1 }, Sq { col: 4, row: 1 }]);
        assert_eq!(DISPLAY.neighbours(Sq { col: 0, row: 0 }).len(), 2);
        assert_eq!(DISPLAY.around(b3).len(), 8);
        assert_eq!(Dir4::N.turn(true), Dir4::E);
        assert_eq!(Dir4::N.turn(false), Dir4::W);
        assert_eq!(Dir4::E.opposite(), Dir4::W);
        assert_eq!(Dir4::S.arrow(), 'v');
        let a1 = Sq { col: 0, row: 0 };
        assert_eq!(b3.toward(a1), (-1, -1), "a diagonal is a step");
        assert_eq!(a1.toward(Sq { col: 4, row: 0 }), (1, 0));
        assert_eq!(a1.toward(a1), (0, 0));
        assert_eq!(a1.distance(Sq { col: 4, row: 1 }), 4, "a king's steps, not a rook's");
        assert_eq!(a1.steps(Sq { col: 4, row: 1 }), 5, "orthogonal steps");
    }
}
