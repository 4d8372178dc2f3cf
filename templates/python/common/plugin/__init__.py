"""{{name}}: {{description}} (a plugsmith plugin, Python standard library only)."""
