/* smdmx: angle conventions.
 *
 * An SMD rotation (rx, ry, rz) in radians is the matrix R = Rz(rz) * Ry(ry) * Rx(rx): X is
 * applied first, column vectors, right-handed (Valve's AngleMatrix of RadianEuler). These
 * functions work in double precision; quaternions are x, y, z, w. */
#ifndef SMDMX_MATH_H
#define SMDMX_MATH_H

#include "smdmx/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Euler (rx, ry, rz) radians to the unit quaternion of Rz*Ry*Rx, with w >= 0. */
SMDMX_API void smdmx_euler_to_quat(const double euler[3], double quat[4]);

/* Unit quaternion to Euler angles of the same matrix, each in (-pi, pi], ry in
 * [-pi/2, pi/2]. At the gimbal poles (|sin ry| = 1) rx is 0 and rz carries the rotation.
 * If near is not NULL, the solution closest to near (adding multiples of 2 pi, or taking the
 * alternate solution) is returned instead, for smooth animation curves. */
SMDMX_API void smdmx_quat_to_euler(const double quat[4], const double *near, double euler[3]);

/* Row-major 3x3 rotation matrix m[row][col] of a unit quaternion. */
SMDMX_API void smdmx_quat_to_matrix(const double quat[4], double m[3][3]);

/* Row-major 3x3 matrix of Euler angles (Rz * Ry * Rx). */
SMDMX_API void smdmx_euler_to_matrix(const double euler[3], double m[3][3]);

#ifdef __cplusplus
}
#endif

#endif
