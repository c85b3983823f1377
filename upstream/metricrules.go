package upstream

// MaxNameLength bounds the name of a goal, key result or task, in bytes.
const MaxNameLength = 1000

// MaxCommentLength bounds a check-in's comment, in bytes.
const MaxCommentLength = 10000

// ValidOperator reports whether op is a target operator: at_least,
// at_most, stay_above or stay_below.
func ValidOperator(op string) bool {
	return op == AtLeast || op == AtMost || op == StayAbove || op == StayBelow
}

// CheckMetric validates a key result about to be written in session ss:
// a name, a known operator and type, numbers that give a bounded
// attainment (CheckMetricNumbers, blaming "target"), a boolean key
// result's actual 0 or 1, and one owner when the session allows no more.
// Whether the owners exist is for the store to check.
func CheckMetric(m Metric, ss Session) error {
	if m.Name == "" {
		return Invalid("name", "must not be empty")
	}
	if len(m.Name) > MaxNameLength {
		return Invalid("name", "must be at most %d characters", MaxNameLength)
	}
	if !ValidOperator(m.TargetOperator) {
		return Invalid("targetOperator", "must be at_least, at_most, stay_above or stay_below")
	}
	if m.ManualType != TypeDouble && m.ManualType != TypeBool {
		return Invalid("manualType", "must be double or boolean")
	}
	if err := CheckMetricNumbers("target", m.ManualType, m.TargetOperator, m.InitialValue, m.Target, m.Actual, m.Critical); err != nil {
		return err
	}
	if m.ManualType == TypeBool && m.Actual != 0 && m.Actual != 1 {
		return Invalid("actual", "a boolean key result's actual must be 0 or 1")
	}
	if len(m.OwnerIDs) > 1 && ss.Settings.MultipleOwners.DisabledForMetrics {
		return Invalid("ownerIds", "the session allows one owner per key result")
	}
	return nil
}

// CheckMetricLimit enforces the session's metricsPerGoalLimit for a key
// result about to be added to goal, which holds n key results now
// (limit_exceeded). A limit of 0 is no limit.
func CheckMetricLimit(ss Session, goal string, n int) error {
	lim := ss.Settings.MetricsPerGoalLimit
	if lim > 0 && n >= lim {
		return Errorf(CodeLimitExceeded, "goal %q already has %d key results (limit %d)", goal, n, lim)
	}
	return nil
}

// CheckCheckInInput validates a check-in as sent, before anything is read:
// an actual that is a finite number in range, a confidence between 0 and
// 10 when given, a comment of at most MaxCommentLength bytes.
func CheckCheckInInput(in CheckInInput) error {
	if in.Actual == nil {
		return Invalid("actual", "is required")
	}
	if err := CheckNumber("actual", *in.Actual); err != nil {
		return err
	}
	if in.Confidence != nil && (*in.Confidence < 0 || *in.Confidence > 10) {
		return Invalid("confidence", "must be between 0 and 10")
	}
	if len(in.Comment) > MaxCommentLength {
		return Invalid("comment", "must be at most %d characters", MaxCommentLength)
	}
	return nil
}

// CheckCheckIn decides whether key result m of goal g takes a check-in of
// actual: not when the goal is abandoned (goal_abandoned), nor when the
// actual would give an attainment out of range (CheckMetricNumbers,
// blaming "actual"). The session's state is SessionGate's (Progress).
func CheckCheckIn(g Goal, m Metric, actual float64) error {
	if g.ClosedStatus.Status == GoalAbandoned {
		return Errorf(CodeGoalAbandoned, "goal %q is abandoned: its key results take no check-ins", g.ID)
	}
	return CheckMetricNumbers("actual", m.ManualType, m.TargetOperator, m.InitialValue, m.Target, actual, m.Critical)
}
