//! The rules of a variant as a player reads them, written from the variant's data only. The
//! command line prints this page and the web page shows it, so the two can never disagree.

use serde::Serialize;

use crate::direction::DirSet;
use crate::geometry::Squares;
use crate::spec::*;
use crate::variant::Variant;
use crate::Color;

/// A rules page: titled sections of sentences, plus the setup diagram.
#[derive(Clone, Debug, Serialize)]
pub struct RulesPage {
    pub id: String,
    pub name: String,
    pub description: String,
    pub sections: Vec<Section>,
    /// The start position, one text row per rank from the top: `w`/`b` men, `.` empty, ` ` unused.
    pub diagram: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Section {
    pub title: String,
    pub lines: Vec<String>,
}

/// The families of the catalogue, in rule-book order, with a line for players.
pub const FAMILIES: [(&str, &str); 5] = [
    (
        "turkish",
        "Turkish family: orthogonal men and kings on all 64 squares",
    ),
    (
        "gothic",
        "Gothic family: Gothic, Croda, Dameo, Harzdame and other all-squares games",
    ),
    (
        "irregular",
        "Irregular: diagonal steps with orthogonal jumps over the light squares",
    ),
    (
        "german",
        "German checkers: the old German game and American checkers",
    ),
    (
        "international",
        "International family: flying kings on the dark squares",
    ),
];

/// A family's player-facing description (the id itself for a family of the user's own).
pub fn family_description(family: &str) -> &str {
    FAMILIES
        .iter()
        .find(|(id, _)| *id == family)
        .map_or(family, |(_, text)| *text)
}

/// Sort key: families in rule-book order (others last), then rule-book block, then id.
pub fn catalogue_order(variant: &Variant) -> (usize, String, String) {
    let family = FAMILIES
        .iter()
        .position(|(id, _)| *id == variant.family)
        .unwrap_or(FAMILIES.len());
    (family, variant.block.clone(), variant.id.clone())
}

fn dir_words(set: DirSet) -> String {
    match set {
        s if s == DirSet::ORTH => {
            "along ranks and files (forward, backward, left and right)".into()
        }
        s if s == DirSet::DIAG => "along the four diagonals".into(),
        s if s == DirSet::ALL8 => "in all eight directions, orthogonal and diagonal".into(),
        s => s.words(),
    }
}

fn count_words(n: u32) -> String {
    if n == 1 {
        "one square".into()
    } else {
        format!("{n} squares")
    }
}

impl Variant {
    /// The player-readable rules page.
    pub fn rules_page(&self) -> RulesPage {
        let g = &self.geometry;
        let dark = g.squares_kind() == Squares::Dark;
        let mut sections = Vec::new();

        let mut board = vec![if dark {
            format!(
                "{}x{} board; only the {} dark squares are used (a1 is dark).",
                g.width(),
                g.height(),
                g.len()
            )
        } else {
            format!(
                "{}x{} board; all {} squares are used.",
                g.width(),
                g.height(),
                g.len()
            )
        }];
        let men = self.setup[0].count_ones();
        board.push(format!(
            "Each player starts with {men} men; Black's setup is White's turned half a circle. {} moves first.",
            capitalise(self.first_player.name())
        ));
        if dark
            && !(self
                .men
                .step
                .union(self.men.capture)
                .union(self.kings.moves)
                .union(self.kings.captures))
            .minus(DirSet::DIAG)
            .is_empty()
        {
            board.push(
                "Orthogonal moves and jumps go along a rank or file over the light squares, two cells at a time: a short orthogonal jump passes a piece two cells away and lands four cells away (Frisian geometry)."
                    .into(),
            );
        }
        sections.push(Section {
            title: "Board and setup".into(),
            lines: board,
        });

        // Men without a step move by their line-leap alone.
        let mut man = if self.men.step.is_empty() {
            vec!["A man has no step.".to_string()]
        } else {
            vec![format!(
                "A man steps {} {}.",
                count_words(1),
                dir_words(self.men.step)
            )]
        };
        match self.men.line_leap {
            LineLeap::None => {}
            kind => man.push(format!(
                "Line-leap: a man {} may jump over an unbroken line of friendly {} straight ahead or diagonally forward, landing on the first empty square beyond it. It is a move, not a capture.",
                if kind == LineLeap::FirstRank { "on its own first rank" } else { "anywhere" },
                match self.men.line_leap_over {
                    LineMembers::Pieces => "pieces",
                    LineMembers::Men => "men (kings break the line)",
                }
            )),
        }
        if self.men.capture.is_empty() {
            man.push("Men never capture.".into());
        } else {
            man.push(format!(
                "A man captures {} by jumping over an adjacent enemy piece onto the empty square right behind it.",
                dir_words(self.men.capture)
            ));
        }
        if !self.men.first_jump_forbidden.is_empty() {
            man.push(format!(
                "A man may not begin a capture {}; from its second jump on it may.",
                self.men.first_jump_forbidden.words()
            ));
        }
        sections.push(Section {
            title: "Men".into(),
            lines: man,
        });

        let k = &self.kings;
        let mut king = vec![match k.move_range {
            Range::Short => format!("A king steps one square {}.", dir_words(k.moves)),
            Range::Flying => format!(
                "A king flies: it moves any number of empty squares {}.",
                dir_words(k.moves)
            ),
        }];
        king.push(match k.capture_range {
            Range::Short => format!(
                "A king captures {} by jumping over an adjacent enemy piece onto the square right behind it.",
                dir_words(k.captures)
            ),
            Range::Flying => format!(
                "A king captures {} from a distance: over empty squares to an enemy piece, then {}.",
                dir_words(k.captures),
                match k.landing {
                    Landing::Any => "onto any empty square beyond it",
                    Landing::Adjacent => "onto the square immediately behind it (after every captured piece)",
                }
            ),
        });
        for (label, targets) in [
            ("orthogonally", k.orth_targets),
            ("diagonally", k.diag_targets),
        ] {
            if targets == Targets::Kings {
                king.push(format!(
                    "{} a king may capture only enemy kings, never men{}.",
                    capitalise(label),
                    if k.targets_first_jump_only {
                        ", and only as the first jump of a capture"
                    } else {
                        ""
                    }
                ));
            }
        }
        sections.push(Section {
            title: "Kings".into(),
            lines: king,
        });

        let c = &self.capture;
        let mut capture = vec![
            "Capturing is compulsory and comes before every other move. A capture goes on as long as the piece can jump again: if some landing square allows another jump, the piece must land there and continue.".to_string(),
        ];
        capture.push(match c.precedence {
            Precedence::Majority if c.man_value == c.king_value => {
                "Majority rule: you must make the capture that takes the most pieces (kings and men count the same); between equal captures you choose.".into()
            }
            Precedence::Majority => format!(
                "Majority rule: you must make the capture of the highest value (a man counts {}, a king {}).",
                c.man_value, c.king_value
            ),
            Precedence::Free => "You may choose any capture, not necessarily the largest; but a capture once begun must be completed.".into(),
        });
        capture.push(match c.removal {
            Removal::Immediate => "Captured pieces leave the board at once, so their squares can be crossed again during the same capture.".into(),
            Removal::Deferred => "Captured pieces stay on the board until the capture is complete: they cannot be jumped twice and block the way.".into(),
        });
        // The 180° rule only matters where a king can re-cross a line it has just cleared.
        if c.removal == Removal::Immediate && k.capture_range == Range::Flying {
            capture.push(match c.reversal {
                Reversal::Forbidden if c.promotion == PromotionInCapture::PromoteAndContinue => {
                    "A capturing king may not turn back 180° between two jumps; a man crowned during a capture may not turn back along its last jump either.".into()
                }
                Reversal::Forbidden => {
                    "A capturing king may not turn back 180° between two jumps.".into()
                }
                Reversal::Allowed => {
                    "A capturing king may turn back 180° and capture along the line it came from.".into()
                }
            });
        }
        match c.halt {
            HaltRule::None => {}
            HaltRule::Killer => capture.push("Killer rule: when the last piece a king captures is a king, the capturing king must land immediately behind it (single captures too).".into()),
            HaltRule::SequentialKiller => capture.push("Sequential killer rule: after a capture of two or more pieces whose last captured piece is a king, the capturing king must land immediately behind it.".into()),
            HaltRule::SequentialHalt => capture.push("Sequential halt rule: after a capture of two or more pieces, a capturing king must land immediately behind the last one.".into()),
            HaltRule::SequentialHalt2 => capture.push("Sequential halt rule II: after a capture of two or more pieces whose last two captured pieces are kings, the capturing king must land immediately behind the last one.".into()),
        }
        if self.bahrain {
            capture.push("Bahrain rule: when you have no capture but some of your men are threatened (the opponent, to move, could take them by a capture the majority rule allows), a man that is not threatened may not move so that it could capture an enemy piece next (lifted if no other move remains).".into());
        }
        sections.push(Section {
            title: "Capturing".into(),
            lines: capture,
        });

        let mut promotion = vec![if self.promotion_far_rank {
            "A man that ends its move on the far rank becomes a king.".to_string()
        } else {
            let list = |color: Color| {
                g.all_squares()
                    .iter()
                    .filter(|s| self.promotion[color.index()] >> s.0 & 1 == 1)
                    .map(|&s| g.name(s))
                    .collect::<Vec<String>>()
                    .join(", ")
            };
            format!(
                "A man becomes a king on its promotion squares: for White {}; for Black {}.",
                list(Color::White),
                list(Color::Black)
            )
        }];
        promotion.push(match c.promotion {
            PromotionInCapture::Stop => "A man that reaches a promotion square during a capture is crowned and the move ends there.".into(),
            PromotionInCapture::ContinueAsMan => "A man that reaches a promotion square during a capture goes on capturing as a man; it is crowned only if the capture ends there.".into(),
            PromotionInCapture::PromoteAndContinue => "A man that reaches a promotion square during a capture is crowned at once and goes on capturing as a king.".into(),
        });
        sections.push(Section {
            title: "Promotion".into(),
            lines: promotion,
        });

        let d = &self.draw;
        let mut end = vec![
            "A player who cannot move (no pieces left, or every piece blocked) loses.".to_string(),
        ];
        if d.one_piece_each {
            end.push("When each player has exactly one piece left, the game is a draw.".into());
        }
        if d.repetition >= 2 {
            end.push(format!(
                "The same position with the same player to move for the {} time is a draw.",
                ordinal(d.repetition)
            ));
        }
        if d.no_progress_moves > 0 {
            end.push(format!(
                "{} moves by each player with no man moved and nothing captured is a draw.",
                d.no_progress_moves
            ));
        }
        if d.fmjd_endgame {
            end.push(if d.fmjd_two_pieces_moves == 5 {
                "FMJD endgame limits: three pieces including a king against a lone king is a draw after 16 moves each; two kings, a king and a man, or one king against a lone king after 5 moves each; the count starts when the material is reached.".into()
            } else {
                format!("Endgame limits: three pieces including a king against a lone king is a draw after 16 moves each; two kings, or a king and a man, against a lone king after {} moves each (this variant is made to win that ending); one king against a lone king after 5 moves each; the count starts when the material is reached.", d.fmjd_two_pieces_moves)
            });
        }
        if d.kings_against_king_moves > 0 {
            end.push(format!("Three or more kings against a lone king: a draw if the lone king is not captured within {} moves of the stronger side, counted from when the material is reached.", d.kings_against_king_moves));
        }
        sections.push(Section {
            title: "End of the game".into(),
            lines: end,
        });

        let mut source = vec![if self.block.is_empty() {
            // A user's own file: whatever it inherits comes from its parent's sources.
            match &self.extends {
                Some(parent) => format!(
                    "A variant of your own ({}), built on `{parent}`; what it keeps of `{parent}` comes from seed {}.",
                    self.file, self.seed
                ),
                None => format!("A variant of your own ({}).", self.file),
            }
        } else {
            format!("Rule book block {}; seed {}.", self.block, self.seed)
        }];
        source.extend(self.sources.iter().cloned());
        sections.push(Section {
            title: "Sources".into(),
            lines: source,
        });

        RulesPage {
            id: self.id.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            sections,
            diagram: self.diagram(),
        }
    }

    /// The start position drawn from the top rank down.
    pub fn diagram(&self) -> Vec<String> {
        let g = &self.geometry;
        (0..g.height() as i32)
            .rev()
            .map(|y| {
                (0..g.width() as i32)
                    .map(|x| match g.square_at(x, y) {
                        None => ' ',
                        Some(sq) if self.setup[0] >> sq.0 & 1 == 1 => 'w',
                        Some(sq) if self.setup[1] >> sq.0 & 1 == 1 => 'b',
                        Some(_) => '.',
                    })
                    .collect()
            })
            .collect()
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn ordinal(n: u32) -> String {
    match n {
        2 => "second".into(),
        3 => "third".into(),
        4 => "fourth".into(),
        n => format!("{n}th"),
    }
}
