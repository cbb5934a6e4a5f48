/** Small types shared by every feature: versioned store values, error codes. No frameworks. */
package dev.veil.common;
