"""The coding-agent session audit (cachelint.transcripts): readers, rebuilds and their causes,
advice, the CLI and --follow, real session files."""
