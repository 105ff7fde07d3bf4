/* A program that keeps main's environment pointer, forks, and execs a child with it (strace's
 * tracee, fork-then-execve launchers): the child must get the environment the program had. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv, char** envp) {
  (void)argc;
  pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    char* child_argv[] = {argv[1], NULL};
    execve(argv[1], child_argv, envp);
    perror("execve");
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 3;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 4;
}
