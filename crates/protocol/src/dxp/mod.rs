//! DXP, the DamExchange protocol: being written.
