/** Whose configuration `arvis doctor` reads, each from `--<role>-env FILE`. */
export const DOCTOR_ROLES = ['authorizer', 'dispatcher', 'relay', 'mcp', 'cli', 'kafka-admin'] as const;
export type DoctorRole = (typeof DOCTOR_ROLES)[number];
