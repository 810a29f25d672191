# formats area
