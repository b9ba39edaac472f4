# steer study: rules are added by the study's issue (see README).
